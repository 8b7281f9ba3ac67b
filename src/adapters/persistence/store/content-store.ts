// Variables and announcements of an application. Each write is one statement that needs no read
// before it, but for a patch of an announcement, which merges into the stored one.
import { and, eq } from 'drizzle-orm';
import type { ContentStore } from '../../../application/ports/content-store.js';
import type { AnnouncementRecord } from '../../../application/records.js';
import { mergeAnnouncement } from '../../../domain/announcements.js';
import { type Dialect, ofApplication } from '../dialect.js';
import type { HotReads } from '../hot-reads.js';
import { toAnnouncement } from '../row-mappers.js';

export function contentStore(d: Dialect, reads: HotReads): ContentStore {
  const { db } = d;
  const { announcements, variables } = d.t;
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
      return row;
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
    async patchAnnouncement(applicationId, id, patch) {
      return d.transaction(async (tx) => {
        const [row] = await d.locked(tx.select().from(announcements).where(ofApplication(announcements, applicationId, id)));
        if (row === undefined) return null;
        const next = mergeAnnouncement<AnnouncementRecord>(toAnnouncement(row), patch);
        const { title, contentHtml, status, publishFrom, publishUntil } = next;
        await tx.update(announcements).set({ title, contentHtml, status, publishFrom, publishUntil }).where(ofApplication(announcements, applicationId, id));
        return next;
      });
    },
    async findAnnouncement(applicationId, id) {
      const [row] = await db.select().from(announcements).where(ofApplication(announcements, applicationId, id));
      return row ? toAnnouncement(row) : null;
    },
    listAnnouncements: reads.listAnnouncements,
    async deleteAnnouncement(applicationId, id) {
      const deleted = await d.write((w) => w.delete(announcements).where(ofApplication(announcements, applicationId, id)).returning({ id: announcements.id }));
      return deleted.length > 0;
    },
  };
}
