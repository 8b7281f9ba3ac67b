// Plans in the console (docs/api.md, Plans). The domain checks every term (domain/plan.ts); the
// store keeps names unique in the application and applies a change to the plan as locked.
import { DomainError } from '../../domain/errors.js';
import { createPlan as planOf, type NewPlan, patchPlan, type Plan, type PlanPatch } from '../../domain/plan.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { PlanStore } from '../ports/plan-store.js';
import type { OwnerRecord } from '../records.js';
import { ownedApplication } from './applications.js';

type PlanDeps = { store: ApplicationStore & PlanStore };

const notFound = () => new DomainError('PLAN_NOT_FOUND', 'no such plan');
function found(plan: Plan | null): Plan {
  if (plan === null) throw notFound();
  return plan;
}

export async function createPlan(deps: PlanDeps & Pick<Deps, 'clock' | 'ids'>, owner: OwnerRecord, appId: string, input: NewPlan): Promise<Plan> {
  const app = await ownedApplication(deps, owner, appId);
  const plan = planOf(input, deps.ids.uuid(), app.id, deps.clock.now());
  await deps.store.insertPlan(plan);
  return plan;
}

export async function listPlans(deps: PlanDeps, owner: OwnerRecord, appId: string): Promise<Plan[]> {
  const app = await ownedApplication(deps, owner, appId);
  return deps.store.listPlans(app.id);
}

/** Another application's plan answers exactly like a missing one. */
export async function getPlan(deps: PlanDeps, owner: OwnerRecord, appId: string, planId: string): Promise<Plan> {
  const app = await ownedApplication(deps, owner, appId);
  return found(await deps.store.findPlan(app.id, planId));
}

/** The patch laid over the plan as it is when the store locks it; `archived` archives or restores. */
export async function updatePlan(deps: PlanDeps & Pick<Deps, 'clock'>, owner: OwnerRecord, appId: string, planId: string, patch: PlanPatch): Promise<Plan> {
  const app = await ownedApplication(deps, owner, appId);
  const now = deps.clock.now();
  return found(await deps.store.updatePlan(app.id, planId, (current) => patchPlan(current, patch, now)));
}

/** PLAN_IN_USE while a license or membership refers to the plan: archive it instead. */
export async function deletePlan(deps: PlanDeps, owner: OwnerRecord, appId: string, planId: string): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if (!(await deps.store.deletePlan(app.id, planId))) throw notFound();
}
