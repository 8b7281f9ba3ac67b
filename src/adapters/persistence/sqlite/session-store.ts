// Sessions and device admission. Counting devices and live sessions and inserting the new ones
// happen in one BEGIN IMMEDIATE transaction, so parallel logins cannot overshoot either cap.
import { and, eq, isNull } from 'drizzle-orm';
import type { SessionStore } from '../../../application/ports.js';
import { planSession } from '../../../domain/sessions.js';
import type { Connection } from './db.js';
import { toSession } from '../row-mappers.js';
import { sessions } from './schema.js';
import { admit, assertStillAdmitted } from './writes.js';

export function sessionStore({ db, reads, immediate }: Connection): SessionStore {
  return {
    async openSession({ session, device, cap, now }) {
      return immediate((tx) => {
        // The password was verified outside this transaction; a timeout, ban or lost membership
        // that landed meanwhile must still refuse the login.
        assertStillAdmitted(reads, session.applicationId, session.userId, now);
        const deviceRegistered =
          device === null ? false : admit(tx, reads, session.userId, device.hardwareId, device.allowed, device.newDeviceId, now);
        // Only live sessions matter to the plan; expired and revoked ones are filtered out here
        // rather than loaded.
        const live = reads.liveSessionsOfUser.all({ userId: session.userId, now });
        const { replace } = planSession(live, session.hardwareId, cap, now);
        for (const id of replace) tx.update(sessions).set({ revokedAt: now }).where(eq(sessions.id, id)).run();
        tx.insert(sessions).values(session).run();
        return { deviceRegistered };
      });
    },
    async admitDevice({ userId, hardwareId, allowed, newDeviceId, now }) {
      immediate((tx) => {
        admit(tx, reads, userId, hardwareId, allowed, newDeviceId, now);
      });
    },
    async findSession(id) {
      const row = reads.sessionById.get({ id });
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
