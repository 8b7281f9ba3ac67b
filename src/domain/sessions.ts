import { DomainError } from './errors.js';
import type { Instant } from './time.js';

export interface SessionState {
  id: string;
  hardwareId: string | null;
  expiresAt: Instant;
  revokedAt: Instant | null;
}

export function isSessionLive(s: SessionState, now: Instant): boolean {
  return s.revokedAt === null && s.expiresAt > now;
}

/**
 * Plans a new login: the same device's older sessions are replaced, and the remaining live
 * sessions must leave room under the cap.
 */
export function planSession(
  existing: readonly SessionState[],
  hardwareId: string | null,
  cap: number,
  now: Instant,
): { replace: string[] } {
  const live = existing.filter((s) => isSessionLive(s, now));
  const replace = hardwareId === null ? [] : live.filter((s) => s.hardwareId === hardwareId).map((s) => s.id);
  if (live.length - replace.length >= cap) {
    throw new DomainError('SESSION_LIMIT_REACHED', 'this account has reached its number of simultaneous sessions');
  }
  return { replace };
}

/** Why a presented session can no longer be used, or null when it can. */
export function sessionRejection(s: SessionState | null, now: Instant): DomainError | null {
  if (s === null || !isSessionLive(s, now)) {
    return new DomainError('SESSION_EXPIRED', 'the session has expired or was revoked; log in again');
  }
  return null;
}
