// Floating seats (docs/machines.md, "Floating seats"): a floating license's users share its seats
// as concurrent sessions and borrows. The store decides under the license's row lock with these.
import { DomainError, validationError } from './errors.js';
import { LEASE_SECONDS_WITHOUT_SETTING, leaseEnd } from './leases.js';
import { isSessionLive, type SessionState } from './sessions.js';
import type { Instant } from './time.js';

/** seat.exhausted is recorded at most this often per license. */
export const SEAT_EXHAUSTED_EVERY_MS = 60_000;

/** A floating seat needs a lease whatever the application asks: its interval, or the one leased
 * sessions renew with when it sets none (docs/machines.md, "Floating seats"). */
export function floatingLeaseEnd(now: Instant, heartbeatSeconds: number | null): Instant {
  return leaseEnd(now, heartbeatSeconds ?? LEASE_SECONDS_WITHOUT_SETTING);
}

/** A session or borrow holding a seat of the license. */
export interface SeatHolder extends SessionState {
  userId: string;
  borrowed: boolean;
}

/** A machine (user and hardware id) holds one seat, whether by a session, a borrow or both; a
 * session without a hardware id is a seat of its own. */
const seatKey = (h: SeatHolder) => (h.hardwareId === null ? `session:${h.id}` : `machine:${h.userId}\u0000${h.hardwareId}`);

/** The seats the live holders take. */
export function seatsInUse(holders: readonly SeatHolder[], now: Instant): number {
  return new Set(holders.filter((h) => isSessionLive(h, now)).map(seatKey)).size;
}

/** When the earliest live holder ends (its lease or its expiry), freeing a seat; null when none. */
export function seatFreesAt(holders: readonly SeatHolder[], now: Instant): Instant | null {
  const ends = holders.filter((h) => isSessionLive(h, now)).map((h) => Math.min(h.expiresAt, h.leaseExpiresAt ?? h.expiresAt));
  return ends.length === 0 ? null : Math.min(...ends);
}

/** Admits a new holder for `machine` beside the live holders (those it replaces already left out),
 * or refuses with SEATS_EXHAUSTED and the seconds until a seat frees. */
export function assertSeatFree(holders: readonly SeatHolder[], machine: Pick<SeatHolder, 'id' | 'userId' | 'hardwareId'>, seats: number, now: Instant): void {
  const newcomer: SeatHolder = { ...machine, expiresAt: now + 1, revokedAt: null, leaseExpiresAt: null, borrowed: false };
  if (seatsInUse([...holders, newcomer], now) <= seats) return;
  const freesAt = seatFreesAt(holders, now);
  const details = freesAt === null ? {} : { retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)) };
  throw new DomainError('SEATS_EXHAUSTED', 'every seat of this floating license is in use; try again when one frees', details);
}

/** Whether seat.exhausted may be recorded again for a license last announced at `lastAt`. */
export function seatExhaustionDue(lastAt: Instant | null, now: Instant): boolean {
  return lastAt === null || now - lastAt >= SEAT_EXHAUSTED_EVERY_MS;
}

/** What borrowing checks of the plan behind the user's floating seat. */
export interface BorrowTerms {
  maxBorrowMinutes: number;
}

/** Whether a borrow of `minutes` may be taken on `seat` (null: the user holds no floating seat):
 * BORROWING_NOT_ALLOWED, or VALIDATION_FAILED for minutes outside 1..max_borrow_minutes. */
export function assertBorrowable<T extends BorrowTerms>(seat: T | null, minutes: number): asserts seat is T {
  if (seat === null) throw new DomainError('BORROWING_NOT_ALLOWED', 'only a seat of a floating license can be borrowed');
  if (seat.maxBorrowMinutes === 0) throw new DomainError('BORROWING_NOT_ALLOWED', 'this plan does not allow borrowing seats');
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > seat.maxBorrowMinutes) {
    throw validationError('minutes', `must be an integer from 1 to ${seat.maxBorrowMinutes}`);
  }
}
