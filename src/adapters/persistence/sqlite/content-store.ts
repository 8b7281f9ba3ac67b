// Variables and announcements of an application.
import { and, eq } from 'drizzle-orm';
import type { ContentStore } from '../../../application/ports.js';
import type { Connection } from './db.js';
import { toAnnouncement, toVariable } from '../row-mappers.js';
import { announcements, variables } from './schema.js';

export function contentStore({ db, reads }: Connection): ContentStore {
  const announcementOf = (applicationId: string, id: string) =>
    and(eq(announcements.applicationId, applicationId), eq(announcements.id, id));
  return {
    async putVariable(v) {
      const row = db
        .insert(variables)
        .values(v)
        .onConflictDoUpdate({ target: [variables.applicationId, variables.name], set: { value: v.value, isPublic: v.isPublic } })
        .returning()
        .get();
      return toVariable(row);
    },
    async listVariables(applicationId) {
      return reads.variablesOf.all({ applicationId }).map(toVariable);
    },
    async deleteVariable(applicationId, name) {
      return db
        .delete(variables)
        .where(and(eq(variables.applicationId, applicationId), eq(variables.name, name)))
        .run().changes > 0;
    },
    async createAnnouncement(a) {
      db.insert(announcements).values(a).run();
    },
    async updateAnnouncement(a) {
      const { id, applicationId, ...rest } = a;
      return db.update(announcements).set(rest).where(announcementOf(applicationId, id)).run().changes > 0;
    },
    async findAnnouncement(applicationId, id) {
      const row = db.select().from(announcements).where(announcementOf(applicationId, id)).get();
      return row ? toAnnouncement(row) : null;
    },
    async listAnnouncements(applicationId) {
      return reads.announcementsOf.all({ applicationId }).map(toAnnouncement);
    },
    async deleteAnnouncement(applicationId, id) {
      return db.delete(announcements).where(announcementOf(applicationId, id)).run().changes > 0;
    },
  };
}
