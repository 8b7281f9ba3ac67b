import { DomainError } from './errors.js';
import { type Instant, MINUTE_MS } from './time.js';

/** Limits on failed credential checks per (account, network), per account and per address. An
 * attempt counts as a failure before its password is verified and is forgiven on success, so
 * parallel guesses cannot pass a limit (docs/choices.md, "Throttling"). */
export interface ThrottleLimits {
  /** Consecutive failures from one address that lock an account for that address. */
  lockoutThreshold: number;
  /** Failures per application and IP per window before 429. */
  ipFailureLimit: number;
  /** Failures on one account per hour, from every address, past which it is locked everywhere. */
  accountFailureLimit: number;
}

export const IP_WINDOW_MS = 10 * MINUTE_MS;
export const ACCOUNT_WINDOW_MS = 60 * MINUTE_MS;
const FIRST_LOCK_MS = MINUTE_MS;
const LONGEST_LOCK_MS = 24 * 60 * MINUTE_MS;

export interface AccountCounter {
  /** Settled consecutive failures. */
  failures: number;
  lockedUntil: Instant | null;
  /** How many locks came before; each doubles the next lock's length. */
  lockouts: number;
  /** Checks reserved but not yet settled. */
  inFlight: number;
  /** When the in-flight reservations lapse: a process that died mid-check cannot hold them forever. */
  inFlightUntil: Instant | null;
}

/** Failures counted in a fixed window that starts with the first one. */
export interface WindowCounter {
  windowStart: Instant;
  failures: number;
}

export type IpCounter = WindowCounter;
/** An account's failures from every address. */
export type AccountWindow = WindowCounter;

export const IN_FLIGHT_LEASE_MS = 30_000;

/** How long an (account, address) counter may sit untouched, unlocked and idle, before it is forgotten. */
export const IDLE_COUNTER_RETENTION_MS = 24 * 60 * MINUTE_MS;

/** What a scheduled purge may delete at `now`: ended windows, and (account, address) counters neither
 * locked nor holding a live check and idle a retention period, so names that never existed leave
 * nothing behind (docs/choices.md, "Throttling"). */
export function throttlePurgeCutoffs(now: Instant): { ipWindowStartedBefore: Instant; accountWindowStartedBefore: Instant; idleSince: Instant } {
  return {
    ipWindowStartedBefore: now - IP_WINDOW_MS + 1,
    accountWindowStartedBefore: now - ACCOUNT_WINDOW_MS + 1,
    idleSince: now - IDLE_COUNTER_RETENTION_MS,
  };
}

export const freshAccountCounter: AccountCounter = { failures: 0, lockedUntil: null, lockouts: 0, inFlight: 0, inFlightUntil: null };

export function lockDuration(lockouts: number): number {
  return Math.min(LONGEST_LOCK_MS, FIRST_LOCK_MS * 2 ** Math.min(lockouts, 20));
}

const retryAfter = (until: Instant, now: Instant) => Math.max(1, Math.ceil((until - now) / 1000));

/** The counter with lapsed in-flight reservations dropped. */
function withLiveInFlight(c: AccountCounter, now: Instant): AccountCounter {
  if (c.inFlight > 0 && c.inFlightUntil !== null && c.inFlightUntil > now) return c;
  return { ...c, inFlight: 0, inFlightUntil: null };
}

export type AccountReservation = { kind: 'reserved'; next: AccountCounter } | { kind: 'busy' };

/** Reserves one check on an account, refused while locked. Settled failures plus checks in flight
 * stay under the threshold, so parallel guesses cannot verify more passwords than it, while parallel
 * correct logins wait their turn ('busy') instead of being refused. */
export function reserveAccountAttempt(c: AccountCounter, threshold: number, now: Instant): AccountReservation {
  if (c.lockedUntil !== null && c.lockedUntil > now) {
    throw new DomainError('ACCOUNT_LOCKED', 'too many failed attempts; try again later', {
      retryAfterSeconds: retryAfter(c.lockedUntil, now),
    });
  }
  const current = withLiveInFlight(c, now);
  if (current.failures + current.inFlight >= threshold) return { kind: 'busy' };
  return { kind: 'reserved', next: { ...current, inFlight: current.inFlight + 1, inFlightUntil: now + IN_FLIGHT_LEASE_MS } };
}

export type AttemptOutcome = 'success' | 'failure';

/** Settles a reserved check. A success forgives everything (the count, any lock and the growth of
 * later locks); the threshold-th consecutive failure starts a lock. */
export function settleAccountAttempt(c: AccountCounter, outcome: AttemptOutcome, threshold: number, now: Instant): AccountCounter {
  const current = withLiveInFlight(c, now);
  const inFlight = Math.max(0, current.inFlight - 1);
  const lease = { inFlight, inFlightUntil: inFlight > 0 ? current.inFlightUntil : null };
  if (outcome === 'success') return { failures: 0, lockedUntil: null, lockouts: 0, ...lease };
  const failures = current.failures + 1;
  if (failures >= threshold) {
    return { failures: 0, lockedUntil: now + lockDuration(current.lockouts), lockouts: current.lockouts + 1, ...lease };
  }
  return { ...current, failures, ...lease };
}

function currentWindow(c: WindowCounter | null, windowMs: number, now: Instant): WindowCounter {
  if (c === null || now - c.windowStart >= windowMs) return { windowStart: now, failures: 0 };
  return c;
}

export function currentIpCounter(c: IpCounter | null, now: Instant): IpCounter {
  return currentWindow(c, IP_WINDOW_MS, now);
}

/** Counts one attempt on the account from every address; past the hour's limit it is locked
 * everywhere, except for a caller `familiar` to it, so strangers' guesses cannot lock its owner out
 * where they are known. Familiar attempts still count. */
export function reserveAccountWindow(c: AccountWindow | null, limit: number, now: Instant, familiar = false): AccountWindow {
  const current = currentWindow(c, ACCOUNT_WINDOW_MS, now);
  if (current.failures >= limit && !familiar) {
    throw new DomainError('ACCOUNT_LOCKED', 'too many failed attempts on this account; try again later', {
      retryAfterSeconds: retryAfter(current.windowStart + ACCOUNT_WINDOW_MS, now),
    });
  }
  return { ...current, failures: current.failures + 1 };
}

/** A success gives back the attempt it reserved; the hour's other failures stand. */
export function accountWindowAfterSuccess(c: AccountWindow | null, now: Instant): AccountWindow {
  const current = currentWindow(c, ACCOUNT_WINDOW_MS, now);
  return { ...current, failures: Math.max(0, current.failures - 1) };
}

/** Counts one attempt from the address; refused past the limit, except for an account `familiar`
 * with it, so one attacker behind a shared address (NAT) cannot lock out everyone behind it. Its
 * attempts still count, and its own (account, address) lock still holds. */
export function reserveIpAttempt(c: IpCounter | null, limit: number, now: Instant, familiar = false): IpCounter {
  const current = currentIpCounter(c, now);
  if (current.failures >= limit && !familiar) {
    throw new DomainError('RATE_LIMITED', 'too many failed attempts from this address; try again later', {
      retryAfterSeconds: retryAfter(current.windowStart + IP_WINDOW_MS, now),
    });
  }
  return { ...current, failures: current.failures + 1 };
}

/** A success gives back the attempt it reserved: only failures count against an address. */
export function ipAfterSuccess(c: IpCounter | null, now: Instant): IpCounter {
  const current = currentIpCounter(c, now);
  return { ...current, failures: Math.max(0, current.failures - 1) };
}
