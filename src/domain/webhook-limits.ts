// What one application may ask of the webhook sender (docs/api.md, Webhooks, "Limits"): a bounded
// number of endpoints, so every event's fan-out stays small, and a bounded rate of test sends, so
// the console cannot be used to aim a stream of requests at someone else's server.
import { DomainError } from './errors.js';
import { type Instant, MINUTE_MS } from './time.js';

export const MAX_WEBHOOK_ENDPOINTS = 20;
export const WEBHOOK_TESTS_PER_MINUTE = 10;

/** Refuses a new endpoint when the application already has `existing`. */
export function checkEndpointCap(existing: number): void {
  if (existing >= MAX_WEBHOOK_ENDPOINTS) {
    throw new DomainError('WEBHOOK_LIMIT_REACHED', `an application has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`);
  }
}

/** The application's test sends in its current minute. */
export interface TestWindow {
  windowStart: Instant;
  sends: number;
}

/** Counts one test send, or refuses it with WEBHOOK_TEST_LIMITED until the minute ends. */
export function countTestSend(window: TestWindow | null, now: Instant): TestWindow {
  const current = window === null || now - window.windowStart >= MINUTE_MS || now < window.windowStart ? { windowStart: now, sends: 0 } : window;
  if (current.sends >= WEBHOOK_TESTS_PER_MINUTE) {
    throw new DomainError('WEBHOOK_TEST_LIMITED', `at most ${WEBHOOK_TESTS_PER_MINUTE} test events a minute per application`, {
      retryAfterSeconds: Math.max(1, Math.ceil((current.windowStart + MINUTE_MS - now) / 1000)),
    });
  }
  return { windowStart: current.windowStart, sends: current.sends + 1 };
}
