// Variables and announcements of an application. Each write is one statement that needs no read
// before it, but for a patch of an announcement, which merges into the stored one.
import { and, eq } from 'drizzle-orm';
import type { ContentStore } from '../../../application/ports/content-store.js';
import type { AnnouncementRecord } from '../../../application/records.js';
import { mergeAnnouncement } from '../../../domain/announcements.js';
import { type Dialect, firstAs, ofApplication } from '../dialect.js';
import type { Lookups } from './lookups.js';
import { toAnnouncement } from '../row-mappers.js';
import type { RecordEvents } from './event-log.js';
import { announcementChanged, variableChanged } from '../../../application/events/content-facts.js';

export function contentStore(d: Dialect, reads: Lookups, recordEvents: RecordEvents): ContentStore {
  const { db } = d;
  const { announcements, variables } = d.t;
  return {
    async putVariable(v, now, actor) {
      return d.transaction(async (tx) => {
        const named = and(eq(variables.applicationId, v.applicationId), eq(variables.name, v.name));
        const [before] = await d.locked(tx.select().from(variables).where(named));
        const replaced = { target: [variables.applicationId, variables.name], set: { value: v.value, isPublic: v.isPublic } };
        const [row] = await tx.insert(variables).values(v).onConflictDoUpdate(replaced).returning();
        if (row === undefined) throw new Error('variable upsert returned no row');
        await recordEvents(tx, actor, [variableChanged(v.applicationId, v.name, before ?? null, row)], now);
        return row;
      });
    },
    listVariables: reads.listVariables,
    async deleteVariable(applicationId, name, now, actor) {
      return d.transaction(async (tx) => {
        const named = and(eq(variables.applicationId, applicationId), eq(variables.name, name));
        const [deleted] = await tx.delete(variables).where(named).returning();
        if (deleted === undefined) return false;
        await recordEvents(tx, actor, [variableChanged(applicationId, name, deleted, null)], now);
        return true;
      });
    },
    async createAnnouncement(a, actor) {
      await d.transaction(async (tx) => {
        await tx.insert(announcements).values(a);
        await recordEvents(tx, actor, [announcementChanged(a.applicationId, a.id, 'created', null, a)], a.createdAt);
      });
    },
    async patchAnnouncement(applicationId, id, patch, now, actor) {
      return d.transaction(async (tx) => {
        const mine = ofApplication(announcements, applicationId, id);
        const [row] = await d.locked(tx.select().from(announcements).where(mine));
        if (row === undefined) return null;
        const next = mergeAnnouncement<AnnouncementRecord>(toAnnouncement(row), patch);
        const { title, contentHtml, status, publishFrom, publishUntil } = next;
        await tx.update(announcements).set({ title, contentHtml, status, publishFrom, publishUntil }).where(mine);
        await recordEvents(tx, actor, [announcementChanged(applicationId, id, 'updated', toAnnouncement(row), next)], now);
        return next;
      });
    },
    async findAnnouncement(applicationId, id) {
      const mine = ofApplication(announcements, applicationId, id);
      return firstAs(db.select().from(announcements).where(mine), toAnnouncement);
    },
    listAnnouncements: reads.listAnnouncements,
    async deleteAnnouncement(applicationId, id, now, actor) {
      return d.transaction(async (tx) => {
        const mine = ofApplication(announcements, applicationId, id);
        const [deleted] = await tx.delete(announcements).where(mine).returning();
        if (deleted === undefined) return false;
        await recordEvents(tx, actor, [announcementChanged(applicationId, id, 'deleted', toAnnouncement(deleted), null)], now);
        return true;
      });
    },
  };
}
