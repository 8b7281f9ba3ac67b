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

/**
 * With legacy header authentication each (user, hardware id) in use holds an internal session
 * until this long after its last request; it counts against the simultaneous-session cap like a
 * token session (docs/choices.md, "Devices and sessions").
 */
export const LEGACY_SESSION_HOLD_MS = 10_000;

/**
 * A legacy request's seat: the live legacy session of the same (user, hardware id) is held on;
 * otherwise a new one opens as a login would (the same device's older sessions replaced, the
 * cap checked).
 */
export function planLegacyHold(
  existing: ReadonlyArray<SessionState & { legacy: boolean }>,
  hardwareId: string | null,
  cap: number,
  now: Instant,
): { kind: 'extend'; id: string } | { kind: 'open'; replace: string[] } {
  const held = existing.find((s) => s.legacy && s.hardwareId === hardwareId && isSessionLive(s, now));
  if (held !== undefined) return { kind: 'extend', id: held.id };
  return { kind: 'open', ...planSession(existing, hardwareId, cap, now) };
}
