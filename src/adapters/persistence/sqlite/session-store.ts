// Sessions and device admission. Counting devices and live sessions and inserting the new ones
// happen in one BEGIN IMMEDIATE transaction, so parallel logins cannot overshoot either cap.
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { SessionStore } from '../../../application/ports.js';
import { planSession } from '../../../domain/sessions.js';
import type { Connection } from './db.js';
import { toSession } from '../row-mappers.js';
import { sessions } from './schema.js';
import { admit, assertStillAdmitted } from './writes.js';

export function sessionStore({ db, immediate }: Connection): SessionStore {
  return {
    async openSession({ session, device, cap, now }) {
      return immediate((tx) => {
        // The password was verified outside this transaction; a timeout, ban or lost membership
        // that landed meanwhile must still refuse the login.
        assertStillAdmitted(tx, session.applicationId, session.userId, now);
        const deviceRegistered =
          device === null ? false : admit(tx, session.userId, device.hardwareId, device.allowed, device.newDeviceId, now);
        // Only live sessions matter to the plan; expired and revoked ones are filtered out here
        // rather than loaded.
        const live = tx
          .select({ id: sessions.id, hardwareId: sessions.hardwareId, expiresAt: sessions.expiresAt, revokedAt: sessions.revokedAt })
          .from(sessions)
          .where(and(eq(sessions.userId, session.userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
          .all();
        const { replace } = planSession(live, session.hardwareId, cap, now);
        for (const id of replace) tx.update(sessions).set({ revokedAt: now }).where(eq(sessions.id, id)).run();
        tx.insert(sessions).values(session).run();
        return { deviceRegistered };
      });
    },
    async admitDevice({ userId, hardwareId, allowed, newDeviceId, now }) {
      immediate((tx) => {
        admit(tx, userId, hardwareId, allowed, newDeviceId, now);
      });
    },
    async findSession(id) {
      const row = db.select().from(sessions).where(eq(sessions.id, id)).get();
      return row ? toSession(row) : null;
    },
    async revokeSession(id, now) {
      db.update(sessions)
        .set({ revokedAt: now })
        .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)))
        .run();
    },
  };
}
