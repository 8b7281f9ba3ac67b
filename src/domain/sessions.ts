import { DomainError } from './errors.js';
import type { Instant } from './time.js';

export interface SessionState {
  id: string;
  hardwareId: string | null;
  expiresAt: Instant;
  revokedAt: Instant | null;
  /** With heartbeats required, the session lives only until then (docs/machines.md, "Heartbeats"). */
  leaseExpiresAt: Instant | null;
}

/** Unrevoked, unexpired and, where it holds a lease, heartbeated in time: only such a session
 * counts against a cap or answers. */
export function isSessionLive(s: SessionState, now: Instant): boolean {
  return s.revokedAt === null && s.expiresAt > now && (s.leaseExpiresAt === null || s.leaseExpiresAt > now);
}

/** Plans a new login: the same device's older sessions are replaced, and the remaining live
 * sessions must leave room under the cap. */
export function planSession(existing: readonly SessionState[], hardwareId: string | null, cap: number, now: Instant): { replace: string[] } {
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

/** With legacy header authentication each (user, hardware id, address) in use holds an internal
 * session until this long after its last request; it counts against the simultaneous-session cap
 * like a token session (docs/choices.md, "Devices and sessions"). */
export const LEGACY_SESSION_HOLD_MS = 10_000;

/** A legacy seat: the asserted hardware id and the address the request came from. */
export interface LegacySeat {
  hardwareId: string | null;
  address: string;
}

/** Legacy credentials name no seat of their own: without device auth nothing but the address would
 * tell machines apart, and the hardware id is optional, so the session cap cannot hold. Refused. */
export function assertLegacySeatsEnforceable(deviceAuth: boolean): void {
  if (!deviceAuth) {
    throw new DomainError('LEGACY_AUTH_NEEDS_DEVICE_AUTH', 'legacy header authentication cannot hold the session cap without device authentication; turn device_auth on or use session tokens');
  }
}

/** A legacy request's seat, bound to the address too since the hardware id is only asserted: held on
 * for the same (hardware id, address), else opened under the cap, replacing that device's token
 * sessions but never another address's seat (docs/choices.md, "Devices and sessions"). */
export function planLegacyHold(
  existing: ReadonlyArray<SessionState & { legacy: boolean; address: string | null }>,
  seat: LegacySeat,
  cap: number,
  now: Instant,
): { kind: 'extend'; id: string } | { kind: 'open'; replace: string[] } {
  const live = existing.filter((s) => isSessionLive(s, now));
  const held = live.find((s) => s.legacy && s.hardwareId === seat.hardwareId && s.address === seat.address);
  if (held !== undefined) return { kind: 'extend', id: held.id };
  const replace = seat.hardwareId === null ? [] : live.filter((s) => !s.legacy && s.hardwareId === seat.hardwareId).map((s) => s.id);
  if (live.length - replace.length >= cap) {
    throw new DomainError('SESSION_LIMIT_REACHED', 'this account has reached its number of simultaneous sessions');
  }
  return { kind: 'open', replace };
}
