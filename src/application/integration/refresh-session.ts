// POST /auth/refresh: a new session and the next refresh token for a remembered login
// (docs/machines.md, "Refresh tokens"). The store decides under the user's lock; refusals that
// wrote something (a reuse revoked its family) are thrown here, after the commit.
import { admissionCaps } from '../../domain/admission.js';
import { DomainError } from '../../domain/errors.js';
import { floatingLeaseEnd } from '../../domain/floating-seats.js';
import { openingLease } from '../../domain/leases.js';
import { decideRefresh } from '../../domain/refresh-tokens.js';
import { type Actor, identified } from '../events/actor.js';
import type { Caller, Deps } from '../deps.js';
import { type Member, memberOf } from '../member.js';
import type { DeviceStore } from '../ports/device-store.js';
import type { RefreshTokenStore, Rotation } from '../ports/refresh-token-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord } from '../records.js';
import { assertUserAccess, type UserAccessDeps } from '../user-access.js';
import { issueRefreshToken } from './refresh-tokens.js';

export interface RefreshBody {
  refresh_token: string;
  hardware_id: string;
}

export interface Refreshed {
  token: string;
  expiresAt: number;
  member: Member;
  refresh: { token: string; expiresAt: number };
}

type RefreshDeps = UserAccessDeps & Pick<Deps, 'clock' | 'ids' | 'secrets' | 'tokens'> & { store: RefreshTokenStore & UserStore & Pick<DeviceStore, 'noteDeviceSeen'> };

const refreshInvalid = () => new DomainError('REFRESH_INVALID', 'the refresh token is unknown, expired, revoked or of another machine; log in again');
const refreshReused = () => new DomainError('REFRESH_REUSED', 'the refresh token was already used: every session of its login has ended; log in again');

export async function refreshSession(deps: RefreshDeps, app: ApplicationRecord, body: RefreshBody, caller: Caller, actor: Actor): Promise<Refreshed> {
  if (!app.settings.tokenAuth) throw new DomainError('TOKEN_AUTH_DISABLED', 'token authentication is disabled for this application');
  const ttlDays = app.settings.refreshTtlDays;
  if (ttlDays === null) throw refreshInvalid();
  const now = deps.clock.now();
  const tokenDigest = deps.secrets.digest(body.refresh_token);
  const presented = { applicationId: app.id, hardwareId: body.hardware_id };
  const seen = await deps.store.findRefreshToken(tokenDigest);
  const first = decideRefresh(seen, presented, now);
  if (seen === null || first === 'invalid') throw refreshInvalid();
  const acting = identified(actor, seen.userId);
  let rotation: Rotation | null = null;
  let member: Member | null = null;
  let issued: { session: string; expiresAt: number; refresh: string } | null = null;
  if (first === 'rotate') {
    const user = await deps.store.findUserById(app.id, seen.userId);
    if (user === null) throw refreshInvalid();
    // Bans of the address, machine and licenses, the timeout and the membership, as at login.
    [, member] = await Promise.all([assertUserAccess(deps, app, user, caller, acting, seen.hardwareId), memberOf(deps, user)]);
    const session = {
      id: deps.ids.uuid(),
      applicationId: app.id,
      userId: user.id,
      hardwareId: seen.hardwareId,
      createdAt: now,
      expiresAt: now + app.settings.sessionTtlSeconds * 1000,
      revokedAt: null,
      leaseExpiresAt: openingLease(now, app.settings.heartbeatSeconds),
      refreshFamilyId: seen.familyId,
      floatingLicenseId: null,
    };
    const token = await deps.tokens.issue({ sessionId: session.id, applicationId: app.id, userId: user.id, hardwareId: seen.hardwareId, expiresAt: session.expiresAt });
    const next = issueRefreshToken(deps, { applicationId: app.id, userId: user.id, familyId: seen.familyId, hardwareId: seen.hardwareId, sessionId: session.id, ttlDays, now });
    const cap = admissionCaps(user, member.plans.base, app.settings).sessions;
    rotation = {
      session: { ...session, tokenDigest: deps.secrets.digest(token) },
      next: next.record,
      cap,
      deviceAuth: app.settings.deviceAuth,
      floatingLease: floatingLeaseEnd(now, app.settings.heartbeatSeconds),
    };
    issued = { session: token, expiresAt: session.expiresAt, refresh: next.token };
  }
  const outcome = await deps.store.refreshSession({ applicationId: app.id, tokenDigest, hardwareId: body.hardware_id, rotation, now, ip: caller.ip }, acting);
  if (outcome.kind === 'reused') throw refreshReused();
  if (outcome.kind === 'invalid' || rotation === null || issued === null || member === null) throw refreshInvalid();
  // A refresh is a sighting of its machine, by the once-a-minute rule (docs/machines.md, "Devices").
  await deps.store.noteDeviceSeen({ applicationId: app.id, userId: seen.userId, hardwareId: seen.hardwareId, info: {}, ip: caller.ip, now });
  return { token: issued.session, expiresAt: issued.expiresAt, member: { ...member, user: outcome.user }, refresh: { token: issued.refresh, expiresAt: rotation.next.expiresAt } };
}
