// A user's entitlements (docs/plans.md, "Entitlements"): the one rule every answer, license file and
// admission reads them by, so that login, app_context and the console never disagree.
import { isAddOnGrantActive } from './add-on-grants.js';
import { hasAccess } from './grace.js';
import type { Membership } from './membership.js';
import type { Instant } from './time.js';

export interface EntitlementSources {
  membership: Membership;
  /** The membership's base plan as read now; null without one. */
  basePlan: { entitlements: readonly string[]; graceMinutes: number } | null;
  /** The user's add-on grants, each with its add-on plan's entitlements as read now; ended ones may be given. */
  addOns: readonly { endsAt: Instant | null; entitlements: readonly string[] }[];
  /** What the owner granted the user directly. */
  direct: readonly string[];
}

/** Sorted, without repeats: the base plan's while the membership gives access (grace included),
 * every active add-on grant's, and the direct ones. */
export function userEntitlements(s: EntitlementSources, now: Instant): string[] {
  const codes = new Set(s.direct);
  if (s.basePlan !== null && hasAccess(s.membership, s.basePlan.graceMinutes, now)) for (const c of s.basePlan.entitlements) codes.add(c);
  for (const addOn of s.addOns) if (isAddOnGrantActive(addOn, now)) for (const c of addOn.entitlements) codes.add(c);
  return [...codes].sort();
}
