// The plans behind a user's access (docs/plans.md, "Entitlements", "Grace" and "Caps"): read as
// they are now, scoped to the application; direct grants; caps an owner clears; and the expiry
// scan counting the base plan's grace.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { SYSTEM } from '../../src/application/events/actor.js';
import { DAY_MS } from '../../src/domain/membership-notices.js';
import { createPlan, type NewPlan, patchPlan } from '../../src/domain/plan.js';
import type { ContractContext } from './store-contract.js';
import { HOUR_MS, seedApp, seedUser, T0 } from './fixtures.js';

const MINUTE_MS = 60_000;
const plan = (applicationId: string, input: Partial<NewPlan> = {}) => createPlan({ name: `Plan ${randomUUID()}`, kind: 'base', durationMinutes: 60, ...input }, randomUUID(), applicationId, T0);

export function userPlanContract({ store, test, section }: ContractContext): void {
  section('user plans', () => {
    test('findUserPlans reads the base plan as it is now, in the application only', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const pro = plan(app.id, { name: 'Pro', entitlements: ['sync', 'export'], graceMinutes: 30, maxDevices: 3 });
      const foreign = plan(other.id);
      await store().insertPlan(pro);
      await store().insertPlan(foreign);
      const user = await seedUser(store(), app.id, { planId: pro.id });
      const base = { id: pro.id, name: 'Pro', entitlements: ['export', 'sync'], graceMinutes: 30, maxDevices: 3, maxSessions: null };
      expect(await store().findUserPlans(app.id, user.id, pro.id)).toEqual({ base, addOns: [] });
      await store().updatePlan(app.id, pro.id, (p) => patchPlan(p, { name: 'Pro 2', entitlements: ['offline'] }, T0 + 1));
      expect(await store().findUserPlans(app.id, user.id, pro.id)).toEqual({ base: { ...base, name: 'Pro 2', entitlements: ['offline'] }, addOns: [] });
      // Another application's plan, an unknown one and none: no base plan.
      expect(await store().findUserPlans(app.id, user.id, foreign.id)).toEqual({ base: null, addOns: [] });
      expect(await store().findUserPlans(app.id, user.id, randomUUID())).toEqual({ base: null, addOns: [] });
      expect(await store().findUserPlans(app.id, user.id, null)).toEqual({ base: null, addOns: [] });
      // The user's details carry the same, with the application's default caps.
      const details = await store().getUserDetails(app.id, user.id);
      expect(details).toMatchObject({
        plans: { base: { ...base, name: 'Pro 2', entitlements: ['offline'] }, addOns: [] },
        capDefaults: { defaultAllowedDevices: app.settings.defaultAllowedDevices, defaultAllowedSessions: app.settings.defaultAllowedSessions },
      });
    });

    test('setUserEntitlements replaces the direct grants of a user of the application', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      expect((await store().setUserEntitlements(app.id, user.id, ['beta', 'export']))?.entitlements).toEqual(['beta', 'export']);
      expect((await store().findUserById(app.id, user.id))?.entitlements).toEqual(['beta', 'export']);
      expect((await store().setUserEntitlements(app.id, user.id, []))?.entitlements).toEqual([]);
      expect(await store().setUserEntitlements(other.id, user.id, ['beta'])).toBeNull();
      expect(await store().setUserEntitlements(app.id, randomUUID(), ['beta'])).toBeNull();
      expect((await store().findUserById(app.id, user.id))?.entitlements).toEqual([]);
    });

    test('caps are stored null without an override; updateUserLimits sets and clears them', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id, { allowedDevices: null, allowedSessions: null });
      expect(await store().findUserById(app.id, user.id)).toMatchObject({ allowedDevices: null, allowedSessions: null });
      expect(await store().updateUserLimits(app.id, user.id, { allowedDevices: 0 })).toMatchObject({ allowedDevices: 0, allowedSessions: null });
      expect(await store().updateUserLimits(app.id, user.id, { allowedDevices: null, allowedSessions: 4 })).toMatchObject({ allowedDevices: null, allowedSessions: 4 });
    });

    test("membership.expired waits for the end of the base plan's grace, read at the scan", async () => {
      const { app } = await seedApp(store());
      const graceful = plan(app.id, { graceMinutes: 120 });
      await store().insertPlan(graceful);
      const user = await seedUser(store(), app.id, { planId: graceful.id, membership: { activeUntil: T0 - HOUR_MS, isLifetime: false } });
      const expiredOf = async () => (await store().listEvents(app.id, { action: 'membership.expired' }, { limit: 10 })).filter((e) => e.target.id === user.id);
      await store().recordMembershipNotices(T0, 100, SYSTEM);
      expect(await expiredOf()).toEqual([]);
      // The owner shortens the grace: access ended 30 minutes ago, and the notice is due now.
      await store().updatePlan(app.id, graceful.id, (p) => patchPlan(p, { graceMinutes: 30 }, T0));
      await store().recordMembershipNotices(T0, 100, SYSTEM);
      const [event] = await expiredOf();
      expect(event?.data).toMatchObject({ activeUntil: T0 - HOUR_MS, accessEndedAt: T0 - 30 * MINUTE_MS });
      // A grace as long as a plan may have still finds the membership in the scan's range.
      const longest = plan(app.id, { graceMinutes: 525_600 });
      await store().insertPlan(longest);
      const late = await seedUser(store(), app.id, { planId: longest.id, membership: { activeUntil: T0 - 365 * DAY_MS, isLifetime: false } });
      await store().recordMembershipNotices(T0 + 1, 100, SYSTEM);
      expect((await store().listEvents(app.id, { action: 'membership.expired' }, { limit: 10 })).some((e) => e.target.id === late.id)).toBe(true);
    });
  });
}
