import { DomainError } from './errors.js';
import type { Instant } from './time.js';

export interface UserTimeout {
  until: Instant;
  reason: string | null;
}

export function isTimedOut(t: UserTimeout | null, now: Instant): t is UserTimeout {
  return t !== null && t.until > now;
}

export function assertNotTimedOut(t: UserTimeout | null, now: Instant): void {
  if (isTimedOut(t, now)) {
    throw new DomainError('TIMED_OUT', 'this account is temporarily timed out', {
      timedOutUntil: t.until,
      reason: t.reason,
    });
  }
}

export function validateTimeout(until: Instant, now: Instant): void {
  if (!(until > now)) {
    throw new DomainError('VALIDATION_FAILED', 'until must be in the future', {
      errors: [{ field: 'until', message: 'must be in the future' }],
    });
  }
}
