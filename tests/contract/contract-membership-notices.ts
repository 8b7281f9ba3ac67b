// Expiry notices (docs/plans.md, "Expiry notices"): recorded with their events once per period, by
// any number of stores at once, none for an extended membership's old period, nothing on a rollback.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ContractContext } from './store-contract.js';
import { HOUR_MS, seedApp, seedUser, T0 } from './fixtures.js';
import type { Store } from '../../src/application/ports/store.js';
import { type Actor, type ActorType, SYSTEM } from '../../src/application/events/actor.js';
import { DAY_MS, EXPIRED_LOOKBACK_MS } from '../../src/domain/membership-notices.js';
import { defaultSettings } from '../../src/domain/application-settings.js';

const timed = (activeUntil: number | null, isLifetime = false) => ({ membership: { activeUntil, isLifetime } });

/** The notice events of the application, as [action, user id, active_until], oldest first. */
async function noticesOf(store: Store, applicationId: string): Promise<Array<[string, string, unknown]>> {
  const events = await store.listEvents(applicationId, {}, { limit: 1000 });
  return events
    .filter((e) => e.action.startsWith('membership.expir'))
    .reverse()
    .map((e) => [e.action, e.target.id, e.data['activeUntil']]);
}

/** Passes until none is due; what they recorded. */
async function drain(store: Store, now: number, limit: number): Promise<number> {
  let total = 0;
  for (;;) {
    const pass = await store.recordMembershipNotices(now, limit, SYSTEM);
    total += pass.recorded;
    if (pass.scanned < limit || pass.recorded === 0) return total;
  }
}

export function membershipNoticeContract({ store, connect, test, section }: ContractContext): void {
  section('membership notices', () => {
    test('records each due notice once, with its event as the actor; none for other memberships', async () => {
      const { app } = await seedApp(store());
      const expiring = await seedUser(store(), app.id, timed(T0 + 3 * DAY_MS));
      const expired = await seedUser(store(), app.id, timed(T0 - HOUR_MS));
      await seedUser(store(), app.id, timed(T0 + 30 * DAY_MS)); // not yet within 7 days
      await seedUser(store(), app.id, timed(T0 + DAY_MS, true)); // lifetime
      await seedUser(store(), app.id, timed(null)); // never granted
      await seedUser(store(), app.id, timed(T0 - EXPIRED_LOOKBACK_MS - 1)); // ended before the lookback
      expect(await store().recordMembershipNotices(T0, 100, SYSTEM)).toEqual({ scanned: 2, recorded: 2 });
      // Memberships are taken by their active_until, the earliest first.
      expect(await noticesOf(store(), app.id)).toEqual([
        ['membership.expired', expired.id, T0 - HOUR_MS],
        ['membership.expiring', expiring.id, T0 + 3 * DAY_MS],
      ]);
      const [event] = await store().listEvents(app.id, { action: 'membership.expiring' }, { limit: 10 });
      expect(event).toMatchObject({ actor: SYSTEM, target: { type: 'user', id: expiring.id, label: expiring.username }, occurredAt: T0 });
      expect(event!.data).toEqual({ user: { id: expiring.id, username: expiring.username, membership: expiring.membership }, activeUntil: T0 + 3 * DAY_MS, noticeDays: 7, at: T0 });
      // Sent: not again, at this instant or later in the same windows.
      expect(await store().recordMembershipNotices(T0, 100, SYSTEM)).toEqual({ scanned: 0, recorded: 0 });
      expect(await store().recordMembershipNotices(T0 + DAY_MS, 100, SYSTEM)).toEqual({ scanned: 0, recorded: 0 });
      // The expiring membership's end comes: its expired notice, once.
      expect(await store().recordMembershipNotices(T0 + 3 * DAY_MS, 100, SYSTEM)).toEqual({ scanned: 1, recorded: 1 });
      expect((await noticesOf(store(), app.id)).at(-1)).toEqual(['membership.expired', expiring.id, T0 + 3 * DAY_MS]);
    });

    test("each application's expiry_notice_days opens the window; 0 sends no expiring notice", async () => {
      const { app: week } = await seedApp(store());
      const { app: month } = await seedApp(store(), { settings: { ...defaultSettings, expiryNoticeDays: 30 } });
      const { app: off } = await seedApp(store(), { settings: { ...defaultSettings, expiryNoticeDays: 0 } });
      for (const a of [week, month, off]) await seedUser(store(), a.id, timed(T0 + 20 * DAY_MS));
      const ended = await seedUser(store(), off.id, timed(T0 - 1));
      expect(await store().recordMembershipNotices(T0, 100, SYSTEM)).toEqual({ scanned: 2, recorded: 2 });
      expect((await noticesOf(store(), week.id)).length).toBe(0);
      expect((await noticesOf(store(), month.id)).map(([action]) => action)).toEqual(['membership.expiring']);
      expect(await noticesOf(store(), off.id)).toEqual([['membership.expired', ended.id, T0 - 1]]);
    });

    test('an extension before the moment cancels the old period; the new one gets its own notices', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id, timed(T0 + 10 * DAY_MS));
      // Extended before its notice came: the old period's never does.
      await store().bulkAdjust(app.id, [user.id], { minutes: 30 * 24 * 60 }, T0, randomUUID, SYSTEM);
      for (const at of [T0 + 4 * DAY_MS, T0 + 10 * DAY_MS, T0 + 11 * DAY_MS]) expect(await drain(store(), at, 100)).toBe(0);
      expect(await drain(store(), T0 + 34 * DAY_MS, 100)).toBe(1);
      // Extended after its expiring notice: that period's expired notice never comes, the new period's do.
      await store().bulkAdjust(app.id, [user.id], { minutes: 24 * 60 }, T0 + 35 * DAY_MS, randomUUID, SYSTEM);
      expect(await drain(store(), T0 + 40 * DAY_MS, 100)).toBe(1);
      expect(await drain(store(), T0 + 41 * DAY_MS, 100)).toBe(1);
      expect(await noticesOf(store(), app.id)).toEqual([
        ['membership.expiring', user.id, T0 + 40 * DAY_MS],
        ['membership.expiring', user.id, T0 + 41 * DAY_MS],
        ['membership.expired', user.id, T0 + 41 * DAY_MS],
      ]);
    });

    test('a pass takes at most its limit; the next passes take the rest', async () => {
      const { app } = await seedApp(store());
      for (let i = 0; i < 5; i++) await seedUser(store(), app.id, timed(T0 + (i + 1) * HOUR_MS));
      expect(await store().recordMembershipNotices(T0, 2, SYSTEM)).toEqual({ scanned: 2, recorded: 2 });
      expect(await drain(store(), T0, 2)).toBe(3);
      expect((await noticesOf(store(), app.id)).length).toBe(5);
    });

    test('two stores on two connections, racing, record each notice exactly once', async () => {
      const peer = await connect();
      const { app } = await seedApp(store());
      const users = [];
      for (let i = 0; i < 30; i++) users.push(await seedUser(store(), app.id, timed(T0 + (i % 2 ? -1 : 1) * (i + 1) * HOUR_MS)));
      const recorded = await Promise.all([drain(store(), T0, 4), drain(peer, T0, 4), drain(store(), T0, 7), drain(peer, T0, 7)]);
      // A pass that found only others' work ends its drain early: what is left goes to the next.
      const rest = (await drain(store(), T0, 100)) + (await drain(peer, T0, 100));
      expect(recorded.reduce((a, b) => a + b, 0) + rest).toBe(30);
      const notices = await noticesOf(store(), app.id);
      expect(notices.length).toBe(30);
      expect(new Set(notices.map(([, id]) => id))).toEqual(new Set(users.map((u) => u.id)));
    });

    test('a pass that fails records nothing: no notice, no event; the next records them', async () => {
      const { app } = await seedApp(store());
      await seedUser(store(), app.id, timed(T0 + HOUR_MS));
      await seedUser(store(), app.id, timed(T0 - HOUR_MS));
      // An actor the event row cannot hold: the event's insert fails after the notices' inserts.
      const broken: Actor = { type: null as unknown as ActorType, id: null, ip: null };
      await expect(store().recordMembershipNotices(T0, 100, broken)).rejects.toThrow();
      expect(await noticesOf(store(), app.id)).toEqual([]);
      expect(await store().recordMembershipNotices(T0, 100, SYSTEM)).toEqual({ scanned: 2, recorded: 2 });
    });

    test("deleting the application takes its users' notices with it", async () => {
      const { app } = await seedApp(store());
      await seedUser(store(), app.id, timed(T0 + HOUR_MS));
      expect(await drain(store(), T0, 100)).toBe(1);
      await store().deleteApplication(app.id);
      expect(await store().findApplication(app.id)).toBeNull();
      const { app: next } = await seedApp(store());
      await seedUser(store(), next.id, timed(T0 + HOUR_MS));
      expect(await drain(store(), T0, 100)).toBe(1);
    });
  });
}
