// What redeeming a license does (docs/plans.md, "Redemption"): a decision on plain records, the
// store writes it. Time is added by membership.ts's rule (from max(now, active_until), capped).
import { type AddOnGrant, stackAddOnGrant } from './add-on-grants.js';
import { type Adjustment, applyLicense, type Membership } from './membership.js';
import type { Plan } from './plan.js';
import type { Instant } from './time.js';

/** What the user holds before the redemption. */
export interface HeldAccess {
  membership: Membership;
  /** The membership's base plan; null without one. */
  planId: string | null;
  addOns: readonly AddOnGrant[];
}

export type RedeemedLicense =
  | { kind: 'minutes'; licenseId: string; /** null: lifetime. */ minutes: number | null }
  /** The plan as read at redemption: a duration changed since the license was made counts. */
  | { kind: 'plan'; licenseId: string; plan: Pick<Plan, 'id' | 'name' | 'kind' | 'durationMinutes'> };

/** A membership adjustment that also says which plan the membership left and took, when it changed. */
export interface PlanAdjustment extends Adjustment {
  planFrom: string | null;
  planTo: string | null;
}

export type RedemptionOutcome =
  /** `switched`: from one base plan to another (membership.plan_changed); not from none. */
  | { kind: 'membership'; membership: Membership; planId: string | null; adjustment: PlanAdjustment; switched: boolean }
  /** The membership is untouched; `grant` replaces the user's active grant of the add-on when `stacked`.
   * `adjustment` adds nothing: it records the license in the user's history (docs/plans.md, "Redemption"). */
  | { kind: 'add_on'; grant: AddOnGrant; stacked: boolean; adjustment: PlanAdjustment };

export function redeemLicense(held: HeldAccess, license: RedeemedLicense, now: Instant, adjustmentId: string): RedemptionOutcome {
  if (license.kind === 'plan' && license.plan.kind === 'add_on') {
    const adjustment: PlanAdjustment = {
      id: adjustmentId,
      type: 'license',
      occurredAt: now,
      minutes: null,
      grantsLifetime: false,
      revokesLifetime: false,
      licenseId: license.licenseId,
      reason: `add-on ${license.plan.name}`,
      planFrom: null,
      planTo: null,
    };
    return { kind: 'add_on', ...stackAddOnGrant(held.addOns, license.plan.id, license.plan.durationMinutes, now), adjustment };
  }
  // Stacking and switching add time alike: a switch keeps the remaining time, as a stack does.
  const minutes = license.kind === 'plan' ? license.plan.durationMinutes : license.minutes;
  const { membership, adjustment } = applyLicense(held.membership, { licenseId: license.licenseId, minutes }, now, adjustmentId);
  const planId = license.kind === 'plan' ? license.plan.id : held.planId;
  const changed = planId !== held.planId;
  return {
    kind: 'membership',
    membership,
    planId,
    adjustment: { ...adjustment, planFrom: changed ? held.planId : null, planTo: changed ? planId : null },
    switched: changed && held.planId !== null,
  };
}
