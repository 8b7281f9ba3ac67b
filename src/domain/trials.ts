// Trials (docs/plans.md, "Trials"): which plan an application may offer, and whether a user may
// start it. The store reads the user, the plan and the trial ledger under its locks; this decides.
import { type AddOnGrant, isAddOnGrantActive } from './add-on-grants.js';
import { DomainError, validationError } from './errors.js';
import { isMembershipActive, type Membership } from './membership.js';
import type { Plan } from './plan.js';
import { type RedemptionOutcome, redeemLicense } from './plan-redemption.js';
import type { Instant } from './time.js';

type TrialPlanFacts = Pick<Plan, 'id' | 'name' | 'kind' | 'trial' | 'archived' | 'durationMinutes'>;

/** The plan an owner names as `trial_plan_id`: a base plan of the application with `trial`, not
 * archived; `plan` is null when the application has no plan of that id. */
export function assertTrialPlan(plan: TrialPlanFacts | null): void {
  if (plan === null) throw new DomainError('PLAN_NOT_FOUND', 'trial_plan_id: the application has no such plan');
  if (plan.kind !== 'base' || !plan.trial) throw validationError('trial_plan_id', 'must name a base plan with trial: true');
  if (plan.archived) throw new DomainError('PLAN_ARCHIVED', 'trial_plan_id: the plan is archived');
}

/** Whether the plan named by the setting still offers a trial: it may have been archived or
 * patched to trial: false since it was named. */
const offers = <P extends TrialPlanFacts>(plan: P | null): plan is P => plan !== null && plan.kind === 'base' && plan.trial && !plan.archived;

export const trialNotOffered = () => new DomainError('TRIAL_NOT_OFFERED', 'this application offers no trial');
export const trialUsed = () => new DomainError('TRIAL_USED', 'a trial was already started by this user or on this machine');

/** What start_trial decides on, as read under the user's lock. */
export interface TrialRequest<P extends TrialPlanFacts> {
  /** The application's trial plan as read now; null when none is named or it is gone. */
  plan: P | null;
  user: { membership: Membership; planId: string | null; trialStartedAt: Instant | null };
  addOns: readonly AddOnGrant[];
  /** Whether the trial ledger already holds the hardware id's digest for the application. */
  hardwareUsed: boolean;
}

/** The trial's grant, checked in order: offered (404), used by the user or the machine (409
 * TRIAL_USED), then eligible (409 TRIAL_NOT_ELIGIBLE: any plan held or an active membership).
 * The grant is a redemption of the plan without a license: its adjustment says `trial`. */
export function startTrial<P extends TrialPlanFacts>(r: TrialRequest<P>, now: Instant, adjustmentId: string): Extract<RedemptionOutcome, { kind: 'membership' }> & { plan: P } {
  if (!offers(r.plan)) throw trialNotOffered();
  if (r.user.trialStartedAt !== null || r.hardwareUsed) throw trialUsed();
  const holdsAPlan = r.user.planId !== null || r.addOns.some((g) => isAddOnGrantActive(g, now));
  if (holdsAPlan || isMembershipActive(r.user.membership, now)) {
    throw new DomainError('TRIAL_NOT_ELIGIBLE', 'only a user without a plan or an active membership may start a trial');
  }
  const held = { membership: r.user.membership, planId: r.user.planId, addOns: r.addOns };
  const outcome = redeemLicense(held, { kind: 'plan', licenseId: '', plan: r.plan }, now, adjustmentId);
  // A base plan always redeems onto the membership; the add-on branch cannot be taken.
  if (outcome.kind !== 'membership') throw new Error('a trial plan is a base plan');
  return { ...outcome, adjustment: { ...outcome.adjustment, type: 'trial', licenseId: null }, plan: r.plan };
}
