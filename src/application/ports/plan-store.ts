// Plans of an application (docs/plans.md). Every method is scoped by application, so one
// application's plan is never reached through another's. Methods marked ATOMIC are one transaction.
import type { Plan } from '../../domain/plan.js';

export interface PlanStore {
  /** PLAN_NAME_TAKEN when the application has a plan of that name. */
  insertPlan(plan: Plan): Promise<void>;
  /** Oldest first. */
  listPlans(applicationId: string): Promise<Plan[]>;
  findPlan(applicationId: string, planId: string): Promise<Plan | null>;
  /** ATOMIC: the plan as `change` makes it from the plan as locked (a refusal there writes nothing);
   * null when the application has no such plan. PLAN_NAME_TAKEN on a clash of a new name. */
  updatePlan(applicationId: string, planId: string, change: (current: Plan) => Plan): Promise<Plan | null>;
  /** ATOMIC: false when the application has no such plan; PLAN_IN_USE while anything refers to it. */
  deletePlan(applicationId: string, planId: string): Promise<boolean>;
}
