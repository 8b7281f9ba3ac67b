// A user's entitlements (docs/plans.md, "Entitlements"): the one rule every answer, license file and
// admission reads them by, so that login, app_context and the console never disagree.
import { isAddOnGrantActive } from './add-on-grants.js';
import { hasAccess } from './grace.js';
import type { Membership } from './membership.js';
import type { Instant } from './time.js';

export interface EntitlementSources {
  membership: Membership;
  /** The membership's base plan as read now, its codes as stored (sorted, without repeats); null without one. */
  basePlan: { entitlements: readonly string[]; graceMinutes: number } | null;
  /** The user's add-on grants, each with its add-on plan's entitlements as read now; ended ones may be given. */
  addOns: readonly { endsAt: Instant | null; entitlements: readonly string[] }[];
  /** What the owner granted the user directly. */
  direct: readonly string[];
}

const none: readonly string[] = Object.freeze([]);

/** Sorted, without repeats: the base plan's while the membership gives access (grace included),
 * every active add-on grant's, and the direct ones. With the base plan alone, its own list (stored
 * sorted, without repeats), so that answers may keep what they make of it. */
export function userEntitlements(s: EntitlementSources, now: Instant): readonly string[] {
  const base = s.basePlan;
  const baseGives = base !== null && hasAccess(s.membership, base.graceMinutes, now);
  if (s.direct.length === 0 && s.addOns.length === 0) return baseGives ? base.entitlements : none;
  const codes = new Set(s.direct);
  if (baseGives) for (const c of base.entitlements) codes.add(c);
  for (const addOn of s.addOns) if (isAddOnGrantActive(addOn, now)) for (const c of addOn.entitlements) codes.add(c);
  return [...codes].sort();
}
