// Plans of an application (docs/plans.md). A change is decided on the row as locked, so parallel
// patches of different fields never undo each other; plans_app_name_uq keeps names unique.
import { and, eq } from 'drizzle-orm';
import type { PlanStore } from '../../../application/ports/plan-store.js';
import { DomainError } from '../../../domain/errors.js';
import { type Db, type Dialect, exists, firstAs, isUniqueViolation, listOrder, ofApplication } from '../dialect.js';
import { planRow, toPlan } from '../row-mappers.js';
import { namedAsTrialPlan } from './trial-store.js';

export function planStore(d: Dialect): PlanStore {
  const { plans, licenses, users, addOnGrants } = d.t;
  // Whether a license, a membership, an add-on grant or the trial setting refers to the plan
  // (docs/plans.md). Issuing licenses locks the plan as deleting does, so none appears between
  // this check and the delete.
  const inUse = async (tx: Db, applicationId: string, planId: string): Promise<boolean> => {
    const referring = await Promise.all([
      exists(
        tx
          .select({ id: licenses.id })
          .from(licenses)
          .where(and(eq(licenses.applicationId, applicationId), eq(licenses.planId, planId))),
      ),
      exists(
        tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.applicationId, applicationId), eq(users.planId, planId))),
      ),
      exists(
        tx
          .select({ planId: addOnGrants.planId })
          .from(addOnGrants)
          .where(and(eq(addOnGrants.applicationId, applicationId), eq(addOnGrants.planId, planId))),
      ),
      namedAsTrialPlan(d, tx, planId),
    ]);
    return referring.some(Boolean);
  };
  const nameKept = async <T>(write: () => Promise<T>): Promise<T> =>
    write().catch((e: unknown) => {
      throw isUniqueViolation(d, e, plans.name) ? new DomainError('PLAN_NAME_TAKEN', 'the application has a plan of this name') : e;
    });
  return {
    insertPlan: (plan) => nameKept(() => d.write(async (w) => void (await w.insert(plans).values(planRow(plan))))),
    async listPlans(applicationId) {
      const rows = await d.db.select().from(plans).where(eq(plans.applicationId, applicationId)).orderBy(listOrder(d).oldestFirst(plans.createdAt, plans.id));
      return rows.map(toPlan);
    },
    findPlan: (applicationId, planId) =>
      firstAs(
        d.db
          .select()
          .from(plans)
          .where(ofApplication(plans, applicationId, planId)),
        toPlan,
      ),
    updatePlan: (applicationId, planId, change) =>
      nameKept(() =>
        d.transaction(async (tx) => {
          const current = await firstAs(
            d.locked(
              tx
                .select()
                .from(plans)
                .where(ofApplication(plans, applicationId, planId)),
            ),
            toPlan,
          );
          if (current === null) return null;
          const next = change(current);
          await tx.update(plans).set(planRow(next)).where(eq(plans.id, planId));
          return next;
        }),
      ),
    deletePlan: (applicationId, planId) =>
      d.transaction(async (tx) => {
        const mine = ofApplication(plans, applicationId, planId);
        const [found] = await d.locked(tx.select({ id: plans.id }).from(plans).where(mine));
        if (found === undefined) return false;
        if (await inUse(tx, applicationId, planId)) throw new DomainError('PLAN_IN_USE', 'a license or membership refers to this plan');
        await tx.delete(plans).where(mine);
        return true;
      }),
  };
}
