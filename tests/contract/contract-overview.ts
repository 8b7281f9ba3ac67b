// The console overview's counts: totals of one application only, and sign-ups and logins by day
// of the window, at its edges too.
import { expect } from 'vitest';
import { DAY_MS, overviewWindow } from '../../src/domain/overview.js';
import type { ContractContext } from './store-contract.js';
import { storedFile } from './contract-files.js';
import { HOUR_MS, makeLicense, makeSession, seedApp, seedUser, T0 } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';

const window = overviewWindow(T0);
const sorted = <T extends { day: number }>(rows: T[]) => [...rows].sort((a, b) => a.day - b.day);

export function overviewContract({ store, test, section }: ContractContext): void {
  section('overview', () => {
    test('an application with nothing in it counts zeros and no days', async () => {
      const { app } = await seedApp(store());
      expect(await store().applicationOverview(app.id, T0, window)).toEqual({
        users: 0,
        activeMemberships: 0,
        licensesUsed: 0,
        licensesUnused: 0,
        storageBytes: 0,
        signUpsByDay: [],
        loginsByDay: [],
      });
    });

    test('counts users, active memberships, licenses and stored bytes of the application only', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      for (const membership of [
        { activeUntil: null, isLifetime: true },
        { activeUntil: T0 + 1, isLifetime: false },
        { activeUntil: T0 - 1, isLifetime: true },
        { activeUntil: T0, isLifetime: false },
        { activeUntil: T0 - DAY_MS, isLifetime: false },
        { activeUntil: null, isLifetime: false },
      ]) {
        await seedUser(store(), app.id, { membership });
      }
      await seedUser(store(), other.id, { membership: { activeUntil: null, isLifetime: true } });
      await store().insertLicenses([makeLicense(app.id, { usedAt: T0 }), makeLicense(app.id), makeLicense(app.id), makeLicense(other.id, { usedAt: T0 })], SYSTEM);
      await storedFile(store(), app.id, 'a.bin');
      await storedFile(store(), app.id, 'b.bin');
      await storedFile(store(), other.id, 'c.bin');
      const overview = await store().applicationOverview(app.id, T0, window);
      expect(overview).toMatchObject({ users: 6, activeMemberships: 3, licensesUsed: 1, licensesUnused: 2, storageBytes: 2 * 1234 });
    });

    test('counts sign-ups and logins (revoked sessions too) by day of the window, and nothing outside it', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const end = window.from + window.days * DAY_MS;
      // Sign-ups: before the window, on its first instant and last instant of day 0, day 1, today.
      for (const createdAt of [window.from - 1, window.from, window.from + DAY_MS - 1, window.from + DAY_MS, T0, T0]) {
        await seedUser(store(), app.id, { createdAt });
      }
      await seedUser(store(), other.id, { createdAt: T0 });
      const member = await seedUser(store(), app.id, { createdAt: window.from - DAY_MS, membership: { activeUntil: end + DAY_MS, isLifetime: true } });
      const open = (createdAt: number, applicationId = app.id, userId = member.id) =>
        store().openSession({ session: makeSession(applicationId, userId, { createdAt, expiresAt: createdAt + HOUR_MS }), device: null, cap: 1000, now: createdAt }, SYSTEM);
      for (const createdAt of [window.from - 1, window.from, T0 - 2 * DAY_MS, T0 - 2 * DAY_MS + 1, T0, end - 1, end]) await open(createdAt);
      // A login that was revoked later still happened.
      const revoked = makeSession(app.id, member.id, { createdAt: T0 - 2 * DAY_MS + 2 });
      await store().openSession({ session: revoked, device: null, cap: 1000, now: revoked.createdAt }, SYSTEM);
      await store().revokeSession(revoked.id, T0, SYSTEM);
      const stranger = await seedUser(store(), other.id, { createdAt: T0 });
      await open(T0, other.id, stranger.id);

      const overview = await store().applicationOverview(app.id, T0, window);
      expect(sorted(overview.signUpsByDay)).toEqual([
        { day: 0, count: 2 },
        { day: 1, count: 1 },
        { day: 29, count: 2 },
      ]);
      expect(sorted(overview.loginsByDay)).toEqual([
        { day: 0, count: 1 },
        { day: 27, count: 3 },
        { day: 29, count: 2 },
      ]);
      expect(overview.users).toBe(7);
    });
  });
}
