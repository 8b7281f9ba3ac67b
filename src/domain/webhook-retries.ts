// When a webhook delivery is tried again and when it is given up: the Standard Webhooks schedule
// (docs/api.md, Webhooks, "Retries"), each delay spread by up to a tenth either way so receivers that
// failed together are not retried together. Pure: the randomness is a parameter.
import type { Instant } from './time.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait after the n-th failed attempt (index n - 1); its length + 1 is the number of attempts. */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The longest Retry-After honoured: a receiver cannot park a delivery for longer than a day. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

/** How long a claimed delivery is held: well beyond the 15 s an attempt may take. */
export const DELIVERY_LEASE_MS = 60 * SECOND;

/** An attempt's answer waits at most this long (docs/api.md, Webhooks). */
export const DELIVERY_TIMEOUT_MS = 15 * SECOND;

/** The first bytes of a receiver's answer kept with the attempt. */
export const ATTEMPT_BODY_BYTES = 2048;

/** What an attempt came to: a status code, or none (a timeout, a refused or failed connection). */
export interface AttemptOutcome {
  statusCode: number | null;
  /** The answer's Retry-After header, as sent. */
  retryAfter: string | null;
}

export type DeliveryStep =
  | { state: 'succeeded' }
  | { state: 'pending'; runAfter: Instant }
  /** Given up: attempts used up (`exhausted`), the receiver answered 410 Gone (`gone`), or the endpoint
   * was disabled before the attempt (`disabled`, no attempt made). */
  | { state: 'failed'; why: 'exhausted' | 'gone' | 'disabled' };

/** Retry-After as milliseconds from `now` (delta seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Instant): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  // An HTTP date names its weekday and month; a bare number of another shape is no date.
  if (!/[A-Za-z]/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The delay after failed attempt number `attempt` (1-based), jittered by `random` in [0, 1); null after the last. */
export function retryDelay(attempt: number, random: () => number): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.9 + 0.2 * random()));
}

/** The delivery's next step after its attempt number `attempt` (1-based) ended in `outcome` at `now`: a
 * 2xx succeeds; 410 gives up at once; anything else waits its turn on the schedule, or longer when
 * Retry-After asks (capped at MAX_RETRY_AFTER_MS), and gives up after the last attempt. */
export function nextStep(attempt: number, outcome: AttemptOutcome, now: Instant, random: () => number): DeliveryStep {
  const code = outcome.statusCode;
  if (code !== null && code >= 200 && code < 300) return { state: 'succeeded' };
  if (code === 410) return { state: 'failed', why: 'gone' };
  const delay = retryDelay(attempt, random);
  if (delay === null) return { state: 'failed', why: 'exhausted' };
  const asked = retryAfterMs(outcome.retryAfter, now);
  return { state: 'pending', runAfter: now + Math.max(delay, Math.min(asked ?? 0, MAX_RETRY_AFTER_MS)) };
}
