// Refresh token families (docs/machines.md, "Refresh tokens"): one login's chain of rotations,
// each token spent by the refresh that replaces it; a spent token presented again revokes the family.
import { validationError } from './errors.js';
import type { Instant } from './time.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the rules read of a stored refresh token. */
export interface RefreshTokenState {
  applicationId: string;
  hardwareId: string;
  expiresAt: Instant;
  spentAt: Instant | null;
  revokedAt: Instant | null;
}

/** What a refresh presents besides the token: the application its keys name, and the machine. */
export interface RefreshPresented {
  applicationId: string;
  hardwareId: string;
}

/** rotate: spend it and issue the next; reuse: revoke the family; invalid: refuse, write nothing. */
export type RefreshDecision = 'rotate' | 'reuse' | 'invalid';

/** Decides a presented token. Another application's token is unknown here; a spent one is a reuse
 * wherever it comes from; a revoked one has no family left to revoke (docs/machines.md). */
export function decideRefresh(token: RefreshTokenState | null, presented: RefreshPresented, now: Instant): RefreshDecision {
  if (token === null || token.applicationId !== presented.applicationId) return 'invalid';
  if (token.spentAt !== null) return 'reuse';
  if (token.revokedAt !== null || token.expiresAt <= now) return 'invalid';
  return token.hardwareId === presented.hardwareId ? 'rotate' : 'invalid';
}

/** When a token issued at `now` ends: each rotation starts a full `refresh_ttl_days` again. */
export const refreshExpiry = (now: Instant, ttlDays: number): Instant => now + ttlDays * DAY_MS;

/** Login's `remember: true` binds the token to a machine, so it needs the login's hardware id. */
export function requireRememberedMachine(hardwareId: string | null): string {
  if (hardwareId === null) throw validationError('hardware_id', 'is required with remember: true: a refresh token is bound to its machine');
  return hardwareId;
}
