// The notices a membership's end brings (docs/events.md, membership.expiring and membership.expired):
// each belongs to one period, named by the active_until it ends at, so an extension starts a new
// period and the old one's notice never comes (docs/plans.md, "Expiry notices").
import { accessEndsAt } from './grace.js';
import type { Membership } from './membership.js';
import type { Instant } from './time.js';

export type NoticeKind = 'expiring' | 'expired';

export interface DueNotice {
  kind: NoticeKind;
  /** The period it belongs to: the membership's active_until. */
  periodEnd: Instant;
}

export const DAY_MS = 86_400_000;

/** How long after access ended `membership.expired` may still be sent: a scheduler that was down
 * catches up within it, and a fresh deploy does not announce every membership that ended long ago. */
export const EXPIRED_LOOKBACK_MS = 7 * DAY_MS;

/** The notices due now: `expiring` while less than `noticeDays` remain before active_until (never
 * with 0, nor once it passed); `expired` from the end of access (grace included) for EXPIRED_LOOKBACK_MS.
 * Lifetime and never granted memberships have none (docs/plans.md, "Expiry notices"). */
export function dueNotices(m: Membership, graceMinutes: number, noticeDays: number, now: Instant): DueNotice[] {
  const ends = accessEndsAt(m, graceMinutes);
  if (ends === null || m.activeUntil === null) return [];
  const periodEnd = m.activeUntil;
  const due: DueNotice[] = [];
  if (noticeDays > 0 && now < periodEnd && now > periodEnd - noticeDays * DAY_MS) due.push({ kind: 'expiring', periodEnd });
  if (now >= ends && now - ends <= EXPIRED_LOOKBACK_MS) due.push({ kind: 'expired', periodEnd });
  return due;
}

/** Whole days left before `activeUntil`, rounded up: what `membership.expiring` says remain. */
export const daysRemaining = (activeUntil: Instant, now: Instant): number => Math.max(0, Math.ceil((activeUntil - now) / DAY_MS));
