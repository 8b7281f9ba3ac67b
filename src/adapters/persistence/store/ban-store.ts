// Bans. Adding one also applies it to what already exists: a user ban ends the user's sessions,
// a license ban flags the license so redemption refuses it.
import { and, eq, gt, inArray, isNull, lte, or } from 'drizzle-orm';
import type { BanStore } from '../../../application/ports/ban-store.js';
import type { BanRecord } from '../../../application/records.js';
import { replacesStoredBan } from '../../../domain/bans.js';
import { chunks, type Dialect, listOrder, ofApplication } from '../dialect.js';
import type { Lookups } from './lookups.js';
import { toBan } from '../row-mappers.js';
import { lockUser, revokeLiveSessions } from './writes.js';
import type { RecordEvents } from './event-log.js';
import { banCreated, banRemoved } from '../../../application/events/event-facts.js';

export function banStore(d: Dialect, reads: Lookups, recordEvents: RecordEvents): BanStore {
  const { db } = d;
  const { bans, licenses } = d.t;
  const { newestFirst } = listOrder(d);
  return {
    findMatchingBans: reads.findMatchingBans,
    async addBans(applicationId, records, now, actor) {
      return d.transaction(async (tx) => {
        const stored: BanRecord[] = [];
        for (const ban of records) {
          // A concurrent insert of the same key is waited for; either way the row is then there.
          const given = { ...ban, applicationId };
          const banKey = [bans.applicationId, bans.type, bans.value];
          const [inserted] = await tx.insert(bans).values(given).onConflictDoNothing({ target: banKey }).returning();
          const sameKey = and(eq(bans.applicationId, applicationId), eq(bans.type, ban.type), eq(bans.value, ban.value));
          const [held] = inserted === undefined ? await d.locked(tx.select().from(bans).where(sameKey)) : [];
          // An expired ban is gone, and an owner's ban takes over a propagated one: the stored
          // row becomes the new ban (its id too, so nothing still names the old one).
          const [replaced] = held !== undefined && replacesStoredBan(held, ban, now) ? await tx.update(bans).set(given).where(sameKey).returning() : [];
          const created = inserted ?? replaced;
          const row = created ?? held;
          if (row === undefined) throw new Error('ban vanished inside its own transaction');
          stored.push(toBan(row));
          if (created !== undefined) await recordEvents(tx, actor, [banCreated(toBan(row))], now);
          // Applied for existing bans too: idempotent, and it heals anything that slipped past.
          if (ban.type === 'user') {
            // Locked like a login, so none slips past the ban (docs/architecture.md, "Persistence notes").
            await lockUser(d, tx, ban.value);
            await revokeLiveSessions(d, tx, applicationId, ban.value, now);
          } else if (ban.type === 'license') {
            // The UPDATE locks the license row, so it orders with redemptions (which lock it too).
            const theLicense = ofApplication(licenses, applicationId, ban.value);
            await tx.update(licenses).set({ banned: true }).where(theLicense);
          }
        }
        return stored;
      });
    },
    async listBans(applicationId, now) {
      const live = and(eq(bans.applicationId, applicationId), or(isNull(bans.expiresAt), gt(bans.expiresAt, now)));
      const rows = await db.select().from(bans).where(live).orderBy(newestFirst(bans.createdAt, bans.id));
      return rows.map(toBan);
    },
    async purgeExpiredBans(now) {
      // Only IP bans expire, so no license flag needs clearing.
      const gone = await d.write((w) => w.delete(bans).where(lte(bans.expiresAt, now)).returning({ id: bans.id }));
      return gone.length;
    },
    async deleteBan(applicationId, banId, now, actor, options) {
      return d.transaction(async (tx) => {
        const theBan = ofApplication(bans, applicationId, banId);
        const [row] = await tx.delete(bans).where(theBan).returning();
        if (!row) return false;
        // Propagated bans never propagate further, so what a ban propagated is one level deep.
        const propagatedFromIt = and(eq(bans.applicationId, applicationId), eq(bans.propagatedFrom, banId));
        const propagated = options?.cascade === true ? await tx.delete(bans).where(propagatedFromIt).returning() : [];
        const removed = [row, ...propagated].map(toBan);
        await recordEvents(tx, actor, removed.map(banRemoved), now);
        const licenseIds = removed.filter((b) => b.type === 'license').map((b) => b.value);
        for (const ids of chunks(licenseIds)) {
          const theLicenses = and(eq(licenses.applicationId, applicationId), inArray(licenses.id, ids));
          await tx.update(licenses).set({ banned: false }).where(theLicenses);
        }
        return true;
      });
    },
  };
}
