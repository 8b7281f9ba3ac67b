// Variables and announcements of an application.
import { and, eq } from 'drizzle-orm';
import type { ContentStore } from '../../../application/ports.js';
import type { Connection } from './db.js';
import type { HotReads } from './hot-reads.js';
import { toAnnouncement, toVariable } from '../row-mappers.js';
import { announcements, variables } from './schema.js';

export function contentStore({ db }: Connection, reads: HotReads): ContentStore {
  const announcementOf = (applicationId: string, id: string) =>
    and(eq(announcements.applicationId, applicationId), eq(announcements.id, id));
  return {
    async putVariable(v) {
      const [row] = await db
        .insert(variables)
        .values(v)
        .onConflictDoUpdate({ target: [variables.applicationId, variables.name], set: { value: v.value, isPublic: v.isPublic } })
        .returning();
      if (row === undefined) throw new Error('variable upsert returned no row');
      return toVariable(row);
    },
    listVariables: reads.listVariables,
    async deleteVariable(applicationId, name) {
      const result = await db.delete(variables).where(and(eq(variables.applicationId, applicationId), eq(variables.name, name)));
      return result.count > 0;
    },
    async createAnnouncement(a) {
      await db.insert(announcements).values(a);
    },
    async updateAnnouncement(a) {
      const { id, applicationId, ...rest } = a;
      return (await db.update(announcements).set(rest).where(announcementOf(applicationId, id))).count > 0;
    },
    async findAnnouncement(applicationId, id) {
      const [row] = await db.select().from(announcements).where(announcementOf(applicationId, id));
      return row ? toAnnouncement(row) : null;
    },
    listAnnouncements: reads.listAnnouncements,
    async deleteAnnouncement(applicationId, id) {
      return (await db.delete(announcements).where(announcementOf(applicationId, id))).count > 0;
    },
  };
}
