// Grace (docs/plans.md, "Grace"): a timed membership whose base plan has grace minutes keeps its
// access from active_until until active_until + grace; lifetime has no end to be graceful about.
import { isMembershipActive, LATEST_ACTIVE_UNTIL, type Membership } from './membership.js';
import { type Instant, MINUTE_MS } from './time.js';

export interface GraceState {
  /** Active, or in grace. */
  isActive: boolean;
  inGrace: boolean;
  /** Set only while in grace. */
  graceEndsAt: Instant | null;
}

/** When access ends, grace included: null for lifetime or never granted. `graceMinutes` is the base
 * plan's, 0 without a plan. Kept within the last instant ISO 8601 writes plainly. */
export function accessEndsAt(m: Membership, graceMinutes: number): Instant | null {
  if (m.isLifetime || m.activeUntil === null) return null;
  return Math.min(LATEST_ACTIVE_UNTIL, m.activeUntil + graceMinutes * MINUTE_MS);
}

/** In grace from active_until (included) until its end (excluded), as active_until ends activity. */
export function graceState(m: Membership, graceMinutes: number, now: Instant): GraceState {
  if (isMembershipActive(m, now)) return { isActive: true, inGrace: false, graceEndsAt: null };
  const ends = accessEndsAt(m, graceMinutes);
  const inGrace = ends !== null && now < ends;
  return { isActive: inGrace, inGrace, graceEndsAt: inGrace ? ends : null };
}

/** Whether the membership gives access now, grace included: what every route admits by. */
export const hasAccess = (m: Membership, graceMinutes: number, now: Instant): boolean => graceState(m, graceMinutes, now).isActive;
