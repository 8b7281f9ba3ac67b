// Session leases (docs/machines.md, "Heartbeats and leases"): a heartbeat's one-statement renewal,
// and a lapsed lease that stops counting against the session cap.
import { expect } from 'vitest';
import type { ContractContext } from './store-contract.js';
import { domainError, makeSession, seedApp, seedUser, T0 } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';

const MINUTE = 60_000;

export function leaseContract({ store, test, section }: ContractContext): void {
  section('leases', () => {
    test('renewLease moves a live lease, and writes nothing for a lapsed, revoked, expired or unleased session', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const open = async (over: Parameters<typeof makeSession>[2]) => {
        const session = makeSession(app.id, user.id, over);
        await store().openSession({ session, device: null, cap: 10, now: T0 }, SYSTEM);
        return session;
      };
      const live = await open({ leaseExpiresAt: T0 + MINUTE });
      expect(await store().renewLease(live.id, T0 + 30_000 + MINUTE, T0 + 30_000)).toBe(true);
      expect((await store().findSession(live.id))?.leaseExpiresAt).toBe(T0 + 30_000 + MINUTE);

      const lapsed = await open({ leaseExpiresAt: T0 + MINUTE });
      expect(await store().renewLease(lapsed.id, T0 + 3 * MINUTE, T0 + MINUTE)).toBe(false);
      expect((await store().findSession(lapsed.id))?.leaseExpiresAt).toBe(T0 + MINUTE);

      const revoked = await open({ leaseExpiresAt: T0 + MINUTE });
      await store().revokeSession(revoked.id, T0 + 1, SYSTEM);
      expect(await store().renewLease(revoked.id, T0 + 2 * MINUTE, T0 + 2)).toBe(false);

      const expired = await open({ leaseExpiresAt: T0 + 10 * MINUTE, expiresAt: T0 + MINUTE });
      expect(await store().renewLease(expired.id, T0 + 12 * MINUTE, T0 + MINUTE)).toBe(false);

      const unleased = await open({ leaseExpiresAt: null });
      expect(await store().renewLease(unleased.id, T0 + 2 * MINUTE, T0 + 1)).toBe(false);
      expect((await store().findSession(unleased.id))?.leaseExpiresAt).toBeNull();
    });

    test('a lapsed lease leaves its seat: a second machine gets in under a cap of one, not before', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const first = makeSession(app.id, user.id, { hardwareId: 'hw-1', leaseExpiresAt: T0 + MINUTE });
      await store().openSession({ session: first, device: null, cap: 1, now: T0 }, SYSTEM);
      const second = (now: number) => store().openSession({ session: makeSession(app.id, user.id, { hardwareId: 'hw-2', createdAt: now }), device: null, cap: 1, now }, SYSTEM);
      await domainError(second(T0 + MINUTE - 1), 'SESSION_LIMIT_REACHED');
      // Renewed just in time, it holds the seat past its first lease.
      expect(await store().renewLease(first.id, T0 + 2 * MINUTE, T0 + MINUTE - 1)).toBe(true);
      await domainError(second(T0 + MINUTE + 1), 'SESSION_LIMIT_REACHED');
      await second(T0 + 2 * MINUTE);
    });
  });
}
