// Trials (docs/plans.md, "Trials"): the trial plan named under its lock and kept in use, and
// startTrial granting it once per user and once per machine, atomically, also against a racing
// connection; every refusal or failure writes nothing.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type Actor, type ActorType, SYSTEM } from '../../src/application/events/actor.js';
import type { StartTrialInput } from '../../src/application/ports/trial-store.js';
import type { Store } from '../../src/application/ports/store.js';
import { createPlan, type NewPlan } from '../../src/domain/plan.js';
import { MINUTE_MS } from '../../src/domain/time.js';
import type { ContractContext } from './store-contract.js';
import { domainError, HOUR_MS, seedApp, seedUser, T0 } from './fixtures.js';

const TRIAL_MINUTES = 7 * 24 * 60;
const newcomer = { membership: { activeUntil: null, isLifetime: false } };

async function offering(store: Store, input: Partial<NewPlan> = {}) {
  const { app } = await seedApp(store);
  const plan = createPlan({ name: 'Trial', kind: 'base', durationMinutes: TRIAL_MINUTES, trial: true, ...input }, randomUUID(), app.id, T0);
  await store.insertPlan(plan);
  await store.patchApplication(app.id, { settings: { trialPlanId: plan.id } }, T0, SYSTEM);
  return { app, plan };
}

const trialOf = (applicationId: string, userId: string, over: Partial<StartTrialInput> = {}): StartTrialInput => ({
  applicationId,
  userId,
  hardwareDigest: 'hw:digest-1',
  adjustmentId: randomUUID(),
  device: null,
  now: T0,
  ...over,
});

const trialEvents = async (store: Store, applicationId: string) => store.listEvents(applicationId, { action: 'trial.started' }, { limit: 100 });

export function trialContract({ store, connect, test, section }: ContractContext): void {
  section('trials', () => {
    test('startTrial grants the plan, records the adjustment and trial.started, and refuses a second try', async () => {
      const { app, plan } = await offering(store());
      const user = await seedUser(store(), app.id, newcomer);
      const { user: granted, adjustment } = await store().startTrial(trialOf(app.id, user.id), SYSTEM);
      const until = T0 + TRIAL_MINUTES * MINUTE_MS;
      expect(granted).toMatchObject({ id: user.id, planId: plan.id, trialStartedAt: T0, membership: { activeUntil: until, isLifetime: false } });
      expect(adjustment).toMatchObject({ type: 'trial', minutes: TRIAL_MINUTES, licenseId: null, planFrom: null, planTo: plan.id });
      const details = await store().getUserDetails(app.id, user.id);
      expect(details?.user).toEqual(granted);
      expect(details?.adjustments).toEqual([adjustment]);
      expect((await trialEvents(store(), app.id)).map((e) => e.target.id)).toEqual([user.id]);

      await domainError(store().startTrial(trialOf(app.id, user.id, { hardwareDigest: 'hw:other' }), SYSTEM), 'TRIAL_USED');
      const other = await seedUser(store(), app.id, newcomer);
      await domainError(store().startTrial(trialOf(app.id, other.id), SYSTEM), 'TRIAL_USED');
      expect((await store().getUserDetails(app.id, other.id))?.user).toMatchObject({ planId: null, trialStartedAt: null });
      expect(await trialEvents(store(), app.id)).toHaveLength(1);
    });

    test('the ledger is per application', async () => {
      const { app } = await offering(store());
      const { app: next } = await offering(store());
      const user = await seedUser(store(), app.id, newcomer);
      await store().startTrial(trialOf(app.id, user.id), SYSTEM);
      const elsewhere = await seedUser(store(), next.id, newcomer);
      await store().startTrial(trialOf(next.id, elsewhere.id), SYSTEM);
      const again = await seedUser(store(), app.id, newcomer);
      await domainError(store().startTrial(trialOf(app.id, again.id), SYSTEM), 'TRIAL_USED');
    });

    test('refusals in order, each writing nothing: not offered, then used, then not eligible', async () => {
      const { app: none } = await seedApp(store());
      const alone = await seedUser(store(), none.id, newcomer);
      await domainError(store().startTrial(trialOf(none.id, alone.id), SYSTEM), 'TRIAL_NOT_OFFERED');

      const { app, plan } = await offering(store());
      const member = await seedUser(store(), app.id);
      await domainError(store().startTrial(trialOf(app.id, member.id), SYSTEM), 'TRIAL_NOT_ELIGIBLE');
      const lapsedWithPlan = await seedUser(store(), app.id, { membership: { activeUntil: T0 - HOUR_MS, isLifetime: false }, planId: plan.id });
      await domainError(store().startTrial(trialOf(app.id, lapsedWithPlan.id), SYSTEM), 'TRIAL_NOT_ELIGIBLE');
      // A used trial answers TRIAL_USED before eligibility is looked at.
      const used = await seedUser(store(), app.id, { trialStartedAt: T0 - HOUR_MS });
      await domainError(store().startTrial(trialOf(app.id, used.id), SYSTEM), 'TRIAL_USED');

      await store().updatePlan(app.id, plan.id, (p) => ({ ...p, archived: true }));
      const user = await seedUser(store(), app.id, newcomer);
      await domainError(store().startTrial(trialOf(app.id, user.id), SYSTEM), 'TRIAL_NOT_OFFERED');
      await store().updatePlan(app.id, plan.id, (p) => ({ ...p, archived: false }));
      // None of the refusals took the machine.
      await store().startTrial(trialOf(app.id, user.id), SYSTEM);
      expect(await trialEvents(store(), app.id)).toHaveLength(1);
    });

    test('a device over the cap refuses the trial and takes nothing', async () => {
      const { app } = await offering(store());
      const user = await seedUser(store(), app.id, newcomer);
      const device = { hardwareId: 'HW-1', allowed: 1, newDeviceId: randomUUID() };
      await store().startTrial(trialOf(app.id, user.id, { device }), SYSTEM);
      expect((await store().getUserDetails(app.id, user.id))?.devices.map((d) => d.hardwareId)).toEqual(['HW-1']);
      const other = await seedUser(store(), app.id, newcomer);
      const full = { hardwareId: 'HW-2', allowed: 0, newDeviceId: randomUUID() };
      await domainError(store().startTrial(trialOf(app.id, other.id, { hardwareDigest: 'hw:2', device: full }), SYSTEM), 'DEVICE_LIMIT_REACHED');
      expect((await store().getUserDetails(app.id, other.id))?.user.trialStartedAt).toBeNull();
      await store().startTrial(trialOf(app.id, other.id, { hardwareDigest: 'hw:2' }), SYSTEM);
    });

    test('a failure after the writes rolls every one back: ledger, user, adjustment, event', async () => {
      const { app } = await offering(store());
      const user = await seedUser(store(), app.id, newcomer);
      // An actor the event row cannot hold: the event's insert fails after the other writes.
      const broken: Actor = { type: null as unknown as ActorType, id: null, ip: null };
      await expect(store().startTrial(trialOf(app.id, user.id), broken)).rejects.toThrow();
      const details = await store().getUserDetails(app.id, user.id);
      expect(details?.user).toMatchObject({ planId: null, trialStartedAt: null, membership: { activeUntil: null } });
      expect(details?.adjustments).toEqual([]);
      expect(await trialEvents(store(), app.id)).toEqual([]);
      await store().startTrial(trialOf(app.id, user.id), SYSTEM);
    });

    test('two users on two connections racing for one machine: one wins, the other is TRIAL_USED', async () => {
      const peer = await connect();
      const { app } = await offering(store());
      const users = [];
      for (let i = 0; i < 6; i++) users.push(await seedUser(store(), app.id, newcomer));
      const outcomes = await Promise.allSettled(users.map((u, i) => (i % 2 ? peer : store()).startTrial(trialOf(app.id, u.id), SYSTEM)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { code?: string }).code).toBe('TRIAL_USED');
      expect(await trialEvents(store(), app.id)).toHaveLength(1);
    });

    test('naming the trial plan: a base plan of the application with trial, not archived; deleting it is PLAN_IN_USE', async () => {
      const { app, plan } = await offering(store());
      const { plan: foreign } = await offering(store());
      const paid = createPlan({ name: 'Pro', kind: 'base', durationMinutes: 60 }, randomUUID(), app.id, T0);
      await store().insertPlan(paid);
      const name = (trialPlanId: string | null) => store().patchApplication(app.id, { settings: { trialPlanId, sessionTtlSeconds: 600 } }, T0, SYSTEM);
      await domainError(name(foreign.id), 'PLAN_NOT_FOUND');
      await domainError(name(paid.id), 'VALIDATION_FAILED');
      expect((await store().findApplication(app.id))?.settings).toMatchObject({ trialPlanId: plan.id, sessionTtlSeconds: 300 });
      await domainError(store().deletePlan(app.id, plan.id), 'PLAN_IN_USE');
      await name(null);
      expect(await store().deletePlan(app.id, plan.id)).toBe(true);
    });
  });
}
