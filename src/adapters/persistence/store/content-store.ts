// Variables and announcements of an application. Each write is one statement that needs no read
// before it, so none takes a transaction.
import { and, eq } from 'drizzle-orm';
import type { ContentStore } from '../../../application/ports.js';
import type { Dialect } from '../dialect.js';
import type { HotReads } from '../hot-reads.js';
import { toAnnouncement, toVariable } from '../row-mappers.js';

export function contentStore(d: Dialect, reads: HotReads): ContentStore {
  const { db } = d;
  const { announcements, variables } = d.t;
  const announcementOf = (applicationId: string, id: string) =>
    and(eq(announcements.applicationId, applicationId), eq(announcements.id, id));
  return {
    async putVariable(v) {
      const [row] = await d.write((w) =>
        w
          .insert(variables)
          .values(v)
          .onConflictDoUpdate({ target: [variables.applicationId, variables.name], set: { value: v.value, isPublic: v.isPublic } })
          .returning(),
      );
      if (row === undefined) throw new Error('variable upsert returned no row');
      return toVariable(row);
    },
    listVariables: reads.listVariables,
    async deleteVariable(applicationId, name) {
      const deleted = await d.write((w) =>
        w
          .delete(variables)
          .where(and(eq(variables.applicationId, applicationId), eq(variables.name, name)))
          .returning({ name: variables.name }),
      );
      return deleted.length > 0;
    },
    async createAnnouncement(a) {
      await d.write((w) => w.insert(announcements).values(a));
    },
    async updateAnnouncement(a) {
      const { id, applicationId, ...rest } = a;
      const updated = await d.write((w) => w.update(announcements).set(rest).where(announcementOf(applicationId, id)).returning({ id: announcements.id }));
      return updated.length > 0;
    },
    async findAnnouncement(applicationId, id) {
      const [row] = await db.select().from(announcements).where(announcementOf(applicationId, id));
      return row ? toAnnouncement(row) : null;
    },
    listAnnouncements: reads.listAnnouncements,
    async deleteAnnouncement(applicationId, id) {
      const deleted = await d.write((w) => w.delete(announcements).where(announcementOf(applicationId, id)).returning({ id: announcements.id }));
      return deleted.length > 0;
    },
  };
}
