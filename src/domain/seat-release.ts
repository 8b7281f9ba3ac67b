// Releasing a seat (docs/plans.md, "Seats"): what the owner takes back from the user when one
// redemption of a plan's code is undone, decided on plain records; the store writes it.
import { type AddOnGrant, isAddOnGrantActive } from './add-on-grants.js';
import { applyBulkChange, type Membership } from './membership.js';
import type { PlanAdjustment } from './plan-redemption.js';
import type { Plan } from './plan.js';
import { type Instant, MINUTE_MS } from './time.js';

/** One redemption of a plan's code, as the store kept it. */
export interface HeldRedemption {
  licenseId: string;
  plan: Pick<Plan, 'id' | 'kind'>;
  /** The membership's plan before a base plan's redemption. */
  planFrom: string | null;
  /** What it added; null: it granted lifetime (or an endless add-on grant). */
  minutes: number | null;
}

export type ReleaseOutcome =
  | { kind: 'membership'; membership: Membership; planId: string | null; adjustment: PlanAdjustment }
  /** `grant`: the user's grant of the add-on afterwards; null when the user held none to take from. */
  | { kind: 'add_on'; grant: AddOnGrant | null; adjustment: PlanAdjustment };

export interface ReleasedFrom {
  membership: Membership;
  /** The membership's base plan; null without one. */
  planId: string | null;
  /** The user's grant of the released add-on, if any. */
  grant: AddOnGrant | null;
}

export const releaseReason = (licenseId: string): string => `seat of license ${licenseId} released`;

/** What releasing `r` leaves: a base plan's time comes off as a negative bulk change does (a lifetime
 * grant revokes lifetime) and plan_from comes back while the membership still holds r's plan; an add-on's
 * grant is shortened by what r added, ending at once at the latest. */
export function releaseRedemption(held: ReleasedFrom, r: HeldRedemption, now: Instant, adjustmentId: string): ReleaseOutcome {
  const reason = releaseReason(r.licenseId);
  if (r.plan.kind === 'add_on') {
    const adjustment: PlanAdjustment = {
      id: adjustmentId,
      type: 'bulk',
      occurredAt: now,
      minutes: null,
      grantsLifetime: false,
      revokesLifetime: false,
      licenseId: r.licenseId,
      reason,
      planFrom: null,
      planTo: null,
    };
    return { kind: 'add_on', grant: shortenedGrant(held.grant, r.minutes, now), adjustment };
  }
  const change = r.minutes === null ? { revokeLifetime: true, reason } : { minutes: -r.minutes, reason };
  const applied = applyBulkChange(held.membership, change, now, adjustmentId);
  const planId = held.planId === r.plan.id ? r.planFrom : held.planId;
  const changed = planId !== held.planId;
  return {
    kind: 'membership',
    membership: applied.membership,
    planId,
    adjustment: { ...applied.adjustment, licenseId: r.licenseId, planFrom: changed ? held.planId : null, planTo: changed ? planId : null },
  };
}

/** An endless grant loses its end only to a lifetime redemption; an ended one has nothing to lose. */
function shortenedGrant(grant: AddOnGrant | null, minutes: number | null, now: Instant): AddOnGrant | null {
  if (grant === null || !isAddOnGrantActive(grant, now)) return grant;
  if (minutes === null) return { ...grant, endsAt: now };
  if (grant.endsAt === null) return grant;
  return { ...grant, endsAt: Math.max(now, grant.endsAt - minutes * MINUTE_MS) };
}
