import { DomainError } from './errors.js';
import { type Instant, MINUTE_MS } from './time.js';

/**
 * Failed credential checks are throttled per account and per (application, client IP). An attempt
 * is counted as a failure before its password is verified and forgiven on success, so parallel
 * guesses cannot verify more passwords than the threshold allows.
 */
export interface ThrottleLimits {
  /** Consecutive failures that lock an account. */
  lockoutThreshold: number;
  /** Failures per application and IP per window before 429. */
  ipFailureLimit: number;
}

export const IP_WINDOW_MS = 10 * MINUTE_MS;
const FIRST_LOCK_MS = MINUTE_MS;
const LONGEST_LOCK_MS = 24 * 60 * MINUTE_MS;

export interface AccountCounter {
  failures: number;
  lockedUntil: Instant | null;
  /** How many locks came before; each doubles the next lock's length. */
  lockouts: number;
}

export interface IpCounter {
  windowStart: Instant;
  failures: number;
}

export const freshAccountCounter: AccountCounter = { failures: 0, lockedUntil: null, lockouts: 0 };

export function lockDuration(lockouts: number): number {
  return Math.min(LONGEST_LOCK_MS, FIRST_LOCK_MS * 2 ** Math.min(lockouts, 20));
}

const retryAfter = (until: Instant, now: Instant) => Math.max(1, Math.ceil((until - now) / 1000));

/** Reserves one attempt on an account: refused while locked; the threshold-th attempt starts a lock. */
export function reserveAccountAttempt(c: AccountCounter, threshold: number, now: Instant): AccountCounter {
  if (c.lockedUntil !== null && c.lockedUntil > now) {
    throw new DomainError('ACCOUNT_LOCKED', 'too many failed attempts; try again later', {
      retryAfterSeconds: retryAfter(c.lockedUntil, now),
    });
  }
  const failures = c.failures + 1;
  if (failures >= threshold) {
    return { failures: 0, lockedUntil: now + lockDuration(c.lockouts), lockouts: c.lockouts + 1 };
  }
  return { ...c, failures };
}

/** A success forgives everything: the count, any lock it started and the growth of later locks. */
export const accountAfterSuccess = (): AccountCounter => freshAccountCounter;

export function currentIpCounter(c: IpCounter | null, now: Instant): IpCounter {
  if (c === null || now - c.windowStart >= IP_WINDOW_MS) return { windowStart: now, failures: 0 };
  return c;
}

export function reserveIpAttempt(c: IpCounter | null, limit: number, now: Instant): IpCounter {
  const current = currentIpCounter(c, now);
  if (current.failures >= limit) {
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
