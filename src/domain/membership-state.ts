// The membership as every answer shows it (docs/plans.md, "Entitlements" and "Grace"): activity
// with grace, the base plan, and the entitlements, all read from the plans as they are now.
import { userEntitlements } from './entitlements.js';
import { graceState } from './grace.js';
import type { Membership } from './membership.js';
import type { Instant } from './time.js';

/** The base plan a membership holds, as read now: what answers, grace and caps need of it. */
export interface HeldPlan {
  id: string;
  name: string;
  entitlements: readonly string[];
  graceMinutes: number;
  maxDevices: number | null;
  maxSessions: number | null;
}

/** The plans behind a user's access: the base plan (null without one) and the add-on grants, each
 * with its add-on's entitlements as read now; ended grants may be given. */
export interface UserPlans {
  base: HeldPlan | null;
  addOns: readonly { endsAt: Instant | null; entitlements: readonly string[] }[];
}

export const noPlans: UserPlans = { base: null, addOns: [] };

export interface MembershipState {
  /** Active, or in grace: what every route admits by. */
  isActive: boolean;
  isLifetime: boolean;
  /** null while lifetime or never granted. */
  activeUntil: Instant | null;
  plan: { id: string; name: string } | null;
  /** Sorted, without repeats; the base plan's own list when it alone gives them. */
  entitlements: readonly string[];
  inGrace: boolean;
  graceEndsAt: Instant | null;
}

/** The base plan's grace, 0 without a plan (docs/plans.md, "Grace"). */
export const graceMinutesOf = (plans: Pick<UserPlans, 'base'>): number => plans.base?.graceMinutes ?? 0;

export function membershipState(m: Membership, direct: readonly string[], plans: UserPlans, now: Instant): MembershipState {
  const grace = graceState(m, graceMinutesOf(plans), now);
  const base = plans.base;
  return {
    isActive: grace.isActive,
    isLifetime: m.isLifetime,
    activeUntil: m.isLifetime ? null : m.activeUntil,
    plan: base === null ? null : { id: base.id, name: base.name },
    entitlements: userEntitlements({ membership: m, basePlan: base, addOns: plans.addOns, direct }, now),
    inGrace: grace.inGrace,
    graceEndsAt: grace.graceEndsAt,
  };
}
