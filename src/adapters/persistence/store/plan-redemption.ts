// Redeeming a plan's license in the caller's transaction, with the license's row locked: the seat is
// decided (domain/seats.ts), the redemption decided (domain/plan-redemption.ts), then written
// (docs/plans.md, "Redemption", "Add-ons", "Seats").
import type { AdjustmentRecord, LicenseRecord, UserRecord } from '../../../application/records.js';
import type { EventDraft } from '../../../application/events/event-draft.js';
import { membershipPlanChanged } from '../../../application/events/event-facts.js';
import type { AddOnGrant } from '../../../domain/add-on-grants.js';
import { DomainError } from '../../../domain/errors.js';
import { licenseRefusal, type Redemption } from '../../../domain/license.js';
import type { Plan } from '../../../domain/plan.js';
import { redeemLicense } from '../../../domain/plan-redemption.js';
import { seatDecision } from '../../../domain/seats.js';
import type { Instant } from '../../../domain/time.js';
import type { Db, Dialect } from '../dialect.js';
import { grantsOf, planOfLicense, redeemersOf, saveGrant, takeSeat } from './seats.js';

/** The plan of a license `userId` may take a seat of: BANNED, LICENSE_USED (full) and LICENSE_ALREADY_REDEEMED
 * refuse; `checkFirst` refuses for the caller before the seat is decided (a sign-up's machine). */
export async function seatFor(d: Dialect, tx: Db, license: LicenseRecord, userId: string, redemption: Redemption, checkFirst?: (plan: Plan) => Promise<void>): Promise<Plan> {
  if (license.banned) throw licenseRefusal('banned', redemption);
  const plan = await planOfLicense(d, tx, license);
  await checkFirst?.(plan);
  const decision = seatDecision({ seats: license.seats, floating: plan.floating }, await redeemersOf(d, tx, license.id), userId);
  if (decision === 'LICENSE_USED') throw licenseRefusal('used', redemption);
  if (decision === 'LICENSE_ALREADY_REDEEMED') throw new DomainError('LICENSE_ALREADY_REDEEMED', 'this user already redeemed this license');
  return plan;
}

/** A decided redemption: the user as it becomes, its adjustment, and what writeSeat records. */
export interface PlanRedemption {
  user: UserRecord;
  adjustment: AdjustmentRecord;
  /** The add-on grant to write; null for a base plan. */
  grant: AddOnGrant | null;
  /** The membership's plan before (a base plan's redemption), which releasing the seat puts back. */
  planFrom: string | null;
  switched: boolean;
}

/** What redeeming `plan`'s `license` does to `user` (its membership and plan, or an add-on grant). */
export async function decidePlanRedemption(d: Dialect, tx: Db, plan: Plan, license: LicenseRecord, user: UserRecord, now: Instant, adjustmentId: string): Promise<PlanRedemption> {
  const addOns = plan.kind === 'add_on' ? await grantsOf(d, tx, user.id) : [];
  const outcome = redeemLicense({ membership: user.membership, planId: user.planId, addOns }, { kind: 'plan', licenseId: license.id, plan }, now, adjustmentId);
  const ofUser = { applicationId: license.applicationId, userId: user.id };
  if (outcome.kind === 'add_on') return { user, adjustment: { ...outcome.adjustment, ...ofUser }, grant: outcome.grant, planFrom: null, switched: false };
  const next = { ...user, membership: outcome.membership, planId: outcome.planId };
  return { user: next, adjustment: { ...outcome.adjustment, ...ofUser }, grant: null, planFrom: user.planId, switched: outcome.switched };
}

/** Writes the redemption's seat, grant and count (the user's row is the caller's: inserted or updated
 * before); returns the license as it now is and the plan_changed event of a switch. */
export async function writeSeat(d: Dialect, tx: Db, plan: Plan, license: LicenseRecord, r: PlanRedemption, now: Instant): Promise<{ license: LicenseRecord; drafts: EventDraft[] }> {
  const taken = await takeSeat(d, tx, license, { userId: r.user.id, planFrom: plan.kind === 'base' ? r.planFrom : null, minutes: plan.durationMinutes }, now);
  if (r.grant !== null) await saveGrant(d, tx, license.applicationId, r.user.id, r.grant, now);
  return { license: taken, drafts: r.switched ? [membershipPlanChanged(r.user, r.adjustment, now)] : [] };
}
