// Plans of an application: created, listed, read, changed under the row's lock and deleted, each
// scoped to its application, with names unique in it.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createPlan, type NewPlan, patchPlan } from '../../src/domain/plan.js';
import type { ContractContext } from './store-contract.js';
import { domainError, seedApp, T0 } from './fixtures.js';

const plan = (applicationId: string, input: Partial<NewPlan> = {}, at = T0) => createPlan({ name: 'Pro', kind: 'base', durationMinutes: 43_200, ...input }, randomUUID(), applicationId, at);

export function planContract({ store, connect, test, section }: ContractContext): void {
  section('plans', () => {
    test('insert, find and list oldest first, each in its application only', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const pro = plan(app.id, { entitlements: ['export', 'beta:channel'], maxDevices: 0, seats: 5, graceMinutes: 4320, floating: true, maxBorrowMinutes: 60 });
      const lifetime = plan(app.id, { name: 'Lifetime', durationMinutes: null, trial: true }, T0 + 1);
      const addOn = plan(app.id, { name: 'Extra', kind: 'add_on' }, T0 - 1);
      for (const p of [pro, lifetime, addOn]) await store().insertPlan(p);
      expect(await store().findPlan(app.id, pro.id)).toEqual(pro);
      expect(await store().findPlan(app.id, lifetime.id)).toEqual(lifetime);
      expect(await store().listPlans(app.id)).toEqual([addOn, pro, lifetime]);
      expect(await store().findPlan(other.id, pro.id)).toBeNull();
      expect(await store().listPlans(other.id)).toEqual([]);
    });

    test('a name is unique in its application: PLAN_NAME_TAKEN on insert and on rename, nothing written', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const pro = plan(app.id);
      await store().insertPlan(pro);
      await domainError(store().insertPlan(plan(app.id, { seats: 3 })), 'PLAN_NAME_TAKEN');
      await store().insertPlan(plan(other.id));
      // Names compare as stored, as file names do.
      const lower = plan(app.id, { name: 'pro' }, T0 + 1);
      await store().insertPlan(lower);
      await domainError(
        store().updatePlan(app.id, lower.id, (p) => patchPlan(p, { name: 'Pro', seats: 9 }, T0 + 1)),
        'PLAN_NAME_TAKEN',
      );
      expect(await store().listPlans(app.id)).toEqual([pro, lower]);
    });

    test('updatePlan saves what the change decides on the current plan; null for another application', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const pro = plan(app.id);
      await store().insertPlan(pro);
      expect(await store().updatePlan(other.id, pro.id, (p) => patchPlan(p, { archived: true }, T0 + 1))).toBeNull();
      expect(await store().updatePlan(app.id, randomUUID(), (p) => p)).toBeNull();
      const changed = await store().updatePlan(app.id, pro.id, (p) => patchPlan(p, { entitlements: ['b', 'a'], maxSessions: 3, archived: true }, T0 + 5));
      expect(changed).toEqual({ ...pro, entitlements: ['a', 'b'], maxSessions: 3, archived: true, updatedAt: T0 + 5 });
      expect(await store().findPlan(app.id, pro.id)).toEqual(changed);
      // A refusal of the change writes nothing.
      await domainError(
        store().updatePlan(app.id, pro.id, (p) => patchPlan(p, { kind: 'add_on', seats: 2 }, T0 + 6)),
        'VALIDATION_FAILED',
      );
      expect(await store().findPlan(app.id, pro.id)).toEqual(changed);
    });

    test('parallel changes of different fields over two connections both hold', async () => {
      const { app } = await seedApp(store());
      const pro = plan(app.id);
      await store().insertPlan(pro);
      const peer = await connect();
      const changes = [{ seats: 7 }, { graceMinutes: 60 }, { maxDevices: 2 }, { entitlements: ['x'] }, { floating: true }, { archived: true }];
      await Promise.all(changes.map((c, i) => (i % 2 === 0 ? store() : peer).updatePlan(app.id, pro.id, (p) => patchPlan(p, c, T0 + 1))));
      expect(await store().findPlan(app.id, pro.id)).toEqual({ ...pro, ...Object.assign({}, ...changes), updatedAt: T0 + 1 });
    });

    test('deletePlan removes the application’s plan only, and plans go with their application', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const pro = plan(app.id);
      const basic = plan(app.id, { name: 'Basic' });
      await store().insertPlan(pro);
      await store().insertPlan(basic);
      expect(await store().deletePlan(other.id, pro.id)).toBe(false);
      expect(await store().deletePlan(app.id, pro.id)).toBe(true);
      expect(await store().deletePlan(app.id, pro.id)).toBe(false);
      expect(await store().listPlans(app.id)).toEqual([basic]);
      expect(await store().deleteApplication(app.id)).toBe(true);
      expect(await store().findPlan(app.id, basic.id)).toBeNull();
    });
  });
}
