// Issuing a refresh token: 256 random bits, kept only as the keyed digest (docs/machines.md, "Refresh tokens").
import { refreshExpiry } from '../../domain/refresh-tokens.js';
import type { Instant } from '../../domain/time.js';
import { type Deps, keyPrefixes } from '../deps.js';
import type { RefreshTokenRecord } from '../records.js';

const TOKEN_BYTES = 32;

/** A new token of `familyId` for the session it comes with; the plain token goes to the client only. */
export function issueRefreshToken(
  deps: Pick<Deps, 'ids' | 'secrets'>,
  at: { applicationId: string; userId: string; familyId: string; hardwareId: string; sessionId: string; ttlDays: number; now: Instant },
): { token: string; record: RefreshTokenRecord } {
  const token = keyPrefixes.refreshToken + Buffer.from(deps.secrets.randomBytes(TOKEN_BYTES)).toString('base64url');
  const { ttlDays, now, ...bound } = at;
  const record = { ...bound, id: deps.ids.uuid(), tokenDigest: deps.secrets.digest(token), issuedAt: now, expiresAt: refreshExpiry(now, ttlDays), spentAt: null, revokedAt: null };
  return { token, record };
}
