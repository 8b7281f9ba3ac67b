import type { WindowCounter } from './auth-throttle.js';
import { DomainError } from './errors.js';
import { type Instant, MINUTE_MS } from './time.js';

/** Sign-ups per address (IPv6 by /64) and per application, per hour (docs/choices.md, "Throttling"):
 * against mass account creation and sign-up as a username oracle. A sign-up is counted before its work
 * and given back if it fails, so parallel sign-ups cannot pass a limit. */
export interface SignUpLimits {
  perAddress: number;
  /** The application's sign_ups_per_hour; null: not limited (nor counted). */
  perApplication: number | null;
}

export const SIGN_UP_WINDOW_MS = 60 * MINUTE_MS;

export type SignUpScope = 'address' | 'application';

function current(c: WindowCounter | null, now: Instant): WindowCounter {
  if (c === null || now - c.windowStart >= SIGN_UP_WINDOW_MS) return { windowStart: now, failures: 0 };
  return c;
}

/** Counts one sign-up in the scope's window; refused with RATE_LIMITED once the window is full. */
export function reserveSignUp(c: WindowCounter | null, scope: SignUpScope, limit: number, now: Instant): WindowCounter {
  const where = scope === 'address' ? 'from this address' : 'on this application';
  return countInHourWindow(c, limit, now, `too many sign-ups ${where}; try again later`);
}

/** Counts one action in an hourly window (the sign-up counters' rows, which hold other hourly budgets
 * too, e.g. a user's variable writes); RATE_LIMITED with `refusal` once it is full. */
export function countInHourWindow(c: WindowCounter | null, limit: number, now: Instant, refusal: string): WindowCounter {
  const window = current(c, now);
  if (window.failures >= limit) {
    throw new DomainError('RATE_LIMITED', refusal, {
      retryAfterSeconds: Math.max(1, Math.ceil((window.windowStart + SIGN_UP_WINDOW_MS - now) / 1000)),
    });
  }
  return { ...window, failures: window.failures + 1 };
}

/** Whether the window just reached the limit: the reservation that fills it (sign_up.limited). */
export function filledByThis(next: WindowCounter, limit: number | null): boolean {
  return limit !== null && next.failures === limit;
}

/** A sign-up that failed gives its count back. */
export function signUpGivenBack(c: WindowCounter | null, now: Instant): WindowCounter {
  const window = current(c, now);
  return { ...window, failures: Math.max(0, window.failures - 1) };
}
