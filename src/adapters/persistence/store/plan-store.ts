// Plans of an application (docs/plans.md). A change is decided on the row as locked, so parallel
// patches of different fields never undo each other; plans_app_name_uq keeps names unique.
import { eq } from 'drizzle-orm';
import type { PlanStore } from '../../../application/ports/plan-store.js';
import { DomainError } from '../../../domain/errors.js';
import { type Db, type Dialect, firstAs, isUniqueViolation, listOrder, ofApplication } from '../dialect.js';
import { planRow, toPlan } from '../row-mappers.js';
import { namedAsTrialPlan } from './trial-store.js';

// Whether a row refers to the plan. Licenses and memberships add their plan ids here with their
// own columns (docs/plans.md); an application's trial plan setting is one such reference.
const inUse = async (d: Dialect, tx: Db, planId: string): Promise<boolean> => namedAsTrialPlan(d, tx, planId);

export function planStore(d: Dialect): PlanStore {
  const { plans } = d.t;
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
        if (await inUse(d, tx, planId)) throw new DomainError('PLAN_IN_USE', 'a license or membership refers to this plan');
        await tx.delete(plans).where(mine);
        return true;
      }),
  };
}
