// Bans. Adding one also applies it to what already exists: a user ban ends the user's sessions,
// a license ban flags the license so redemption refuses it.
import { and, desc, eq } from 'drizzle-orm';
import type { BanRecord, BanStore } from '../../../application/ports.js';
import type { BanKey } from '../../../domain/bans.js';
import type { Connection } from './db.js';
import { toBan } from '../row-mappers.js';
import { bans, licenses, sessions } from './schema.js';
import { revokeLiveSessions } from './writes.js';

const keyMatch = (k: BanKey) => and(eq(bans.type, k.type), eq(bans.value, k.value));

export function banStore({ db, reads, immediate }: Connection): BanStore {
  return {
    async findMatchingBans(applicationId, keys) {
      return reads.matchingBans(applicationId, keys);
    },
    async addBans(applicationId, records, now) {
      return immediate((tx) => {
        const stored: BanRecord[] = [];
        for (const ban of records) {
          tx.insert(bans)
            .values({ ...ban, applicationId })
            .onConflictDoNothing({ target: [bans.applicationId, bans.type, bans.value] })
            .run();
          const row = tx
            .select()
            .from(bans)
            .where(and(eq(bans.applicationId, applicationId), keyMatch(ban)))
            .get();
          if (!row) throw new Error('ban vanished inside its own transaction');
          stored.push(toBan(row));
          // Applied for existing bans too: idempotent, and it heals anything that slipped past.
          if (ban.type === 'user') {
            revokeLiveSessions(tx, and(eq(sessions.applicationId, applicationId), eq(sessions.userId, ban.value)), now);
          } else if (ban.type === 'license') {
            tx.update(licenses)
              .set({ banned: true })
              .where(and(eq(licenses.applicationId, applicationId), eq(licenses.id, ban.value)))
              .run();
          }
        }
        return stored;
      });
    },
    async listBans(applicationId) {
      return db
        .select()
        .from(bans)
        .where(eq(bans.applicationId, applicationId))
        .orderBy(desc(bans.createdAt), desc(bans.id))
        .all()
        .map(toBan);
    },
    async deleteBan(applicationId, banId) {
      return immediate((tx) => {
        const row = tx
          .select()
          .from(bans)
          .where(and(eq(bans.applicationId, applicationId), eq(bans.id, banId)))
          .get();
        if (!row) return false;
        tx.delete(bans).where(eq(bans.id, banId)).run();
        if (row.type === 'license') {
          tx.update(licenses)
            .set({ banned: false })
            .where(and(eq(licenses.applicationId, applicationId), eq(licenses.id, row.value)))
            .run();
        }
        return true;
      });
    },
  };
}
