import { type Actor, identified } from '../events/actor.js';
import { deviceLimitReached } from '../events/refusals.js';
import { recordingRefusal } from '../events/record-refusal.js';
import { deviceToAdmit, requireHardwareId } from '../../domain/devices.js';
import { DomainError, loginRequired } from '../../domain/errors.js';
import { assertLegacySeatsEnforceable, LEGACY_SESSION_HOLD_MS, sessionRejection } from '../../domain/sessions.js';
import { type BanGuardDeps, guardBans } from '../ban-guard.js';
import { checkLicenseLogin, checkPassword, type LicenseLoginDeps, type PasswordCheckDeps } from '../credential-checks.js';
import type { Caller, Deps } from '../deps.js';
import type { DeviceStore } from '../ports/device-store.js';
import type { SessionStore } from '../ports/session-store.js';
import type { FloatingSeatStore } from '../ports/floating-seat-store.js';
import { notingExhaustedSeats } from '../floating/seats-exhausted.js';
import type { SessionClaims } from '../ports/token-service.js';
import type { ApplicationRecord, SessionRecord, UserRecord } from '../records.js';
import { assertUserAccess, type UserAccessDeps } from '../user-access.js';
import { capsFor } from '../member.js';

/** The user credentials an integration request may carry (one method at a time). */
export interface PresentedUser {
  bearer?: string | undefined;
  licenseCode?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  hardwareId?: string | undefined;
}

const invalidToken = () => new DomainError('INVALID_CREDENTIALS', 'invalid session token');

/** What finding the live session behind a token uses. */
export type LiveSessionDeps = Pick<Deps, 'clock' | 'secrets' | 'tokens'> & { store: SessionStore };

/** What legacy header authentication uses: either credential check, the access re-check, and its seat. */
type LegacyUserDeps = PasswordCheckDeps &
  LicenseLoginDeps &
  UserAccessDeps &
  Pick<Deps, 'clock' | 'ids'> & { store: SessionStore & Pick<DeviceStore, 'noteDeviceSeen'> & Pick<FloatingSeatStore, 'recordSeatsExhausted'> };

/** What authenticating the user of an integration request uses: a token, or the legacy headers. */
export type AuthenticateUserDeps = LiveSessionDeps & UserAccessDeps & LegacyUserDeps;

/** What authenticating the caller of a read endpoint uses: a user, or an anonymous caller's ban check. */
export type ReaderDeps = AuthenticateUserDeps & BanGuardDeps;

/** The claims of a token this application issued; forged tokens and other applications' fail. */
function claimsOf(deps: LiveSessionDeps, app: ApplicationRecord, token: string): SessionClaims {
  const claims = deps.tokens.read(token);
  if (claims === null || claims.applicationId !== app.id) throw invalidToken();
  return claims;
}

/** The session row behind verified claims, if it is theirs and still lives. */
function checkSession(deps: LiveSessionDeps, app: ApplicationRecord, token: string, claims: SessionClaims, session: SessionRecord | null): SessionRecord {
  if (session !== null && (session.applicationId !== app.id || session.userId !== claims.userId || !deps.secrets.sameDigest(session.tokenDigest, deps.secrets.digest(token)))) {
    throw invalidToken();
  }
  const rejection = sessionRejection(session, deps.clock.now());
  if (session === null || rejection !== null) throw rejection ?? invalidToken();
  return session;
}

/** The live session behind a token of this application. The signature turns away forged tokens
 * and tokens of other applications; the session row decides whether it still lives. */
export async function liveSession(deps: LiveSessionDeps, app: ApplicationRecord, token: string): Promise<SessionRecord> {
  const claims = claimsOf(deps, app, token);
  return checkSession(deps, app, token, claims, await deps.store.findSession(claims.sessionId));
}

/** Token authentication: a live session, and a user still allowed in. */
async function userFromToken(deps: LiveSessionDeps & UserAccessDeps, app: ApplicationRecord, token: string, caller: Caller, actor: Actor): Promise<UserRecord> {
  return (await sessionFromToken(deps, app, token, caller, actor)).user;
}

/** Token authentication that also answers the session: checked as every token request is. */
export async function sessionFromToken(
  deps: LiveSessionDeps & UserAccessDeps,
  app: ApplicationRecord,
  token: string,
  caller: Caller,
  actor: Actor,
): Promise<{ session: SessionRecord; user: UserRecord }> {
  if (!app.settings.tokenAuth) throw new DomainError('TOKEN_AUTH_DISABLED', 'token authentication is disabled for this application');
  const claims = claimsOf(deps, app, token);
  // The signed token names its user, so the user is read with the session; it counts only once
  // the session row has confirmed the token.
  const { session: found, user } = await deps.store.findSessionAccess(app.id, claims.sessionId, claims.userId);
  const session = checkSession(deps, app, token, claims, found);
  // A session opened before the application turned device auth on is tied to no device.
  if (app.settings.deviceAuth && session.hardwareId === null) {
    throw new DomainError('SESSION_EXPIRED', 'device authentication is now required; log in again with a hardware id');
  }
  // A session whose user is gone is over.
  if (user === null) throw new DomainError('SESSION_EXPIRED', 'the session has expired or was revoked; log in again');
  await assertUserAccess(deps, app, user, caller, identified(actor, user.id), session.hardwareId);
  return { session, user };
}

/** Legacy per-request credentials: validated (and throttled) on every request. */
async function userFromLegacyHeaders(deps: LegacyUserDeps, app: ApplicationRecord, p: PresentedUser, caller: Caller, actor: Actor): Promise<UserRecord> {
  if (!app.settings.legacyAuth) {
    throw new DomainError('LEGACY_AUTH_DISABLED', 'legacy header authentication is disabled for this application');
  }
  assertLegacySeatsEnforceable(app.settings.deviceAuth);
  const hardwareId = requireHardwareId(app.settings.deviceAuth, p.hardwareId);
  let user: UserRecord;
  if (p.licenseCode !== undefined) {
    user = (await checkLicenseLogin(deps, app, p.licenseCode, caller, actor, hardwareId)).user;
  } else if (p.username !== undefined && p.password !== undefined) {
    user = await checkPassword(deps, app, p.username, p.password, caller, actor, hardwareId);
  } else {
    throw new DomainError('INVALID_CREDENTIALS', 'x-api-username and x-api-password go together');
  }
  const acting = identified(actor, user.id);
  await assertUserAccess(deps, app, user, caller, acting, hardwareId);
  const caps = await capsFor(deps, app, user);
  // Each (user, hardware id, address) in use holds a short internal session that counts against
  // the simultaneous-session cap like a token session; the device is admitted with it.
  const seat = () =>
    deps.store.holdLegacySession(
      {
        applicationId: app.id,
        userId: user.id,
        hardwareId,
        address: caller.ip,
        device: deviceToAdmit(app.settings.deviceAuth, hardwareId, caps.devices, () => deps.ids.uuid()),
        cap: caps.sessions,
        newSessionId: deps.ids.uuid(),
        holdMs: LEGACY_SESSION_HOLD_MS,
        now: deps.clock.now(),
      },
      acting,
    );
  // A floating license's seat is taken with it (docs/machines.md, "Floating seats").
  const floating = () => notingExhaustedSeats(deps, { applicationId: app.id, userId: user.id, hardwareId }, seat, acting);
  await recordingRefusal(deps, 'DEVICE_LIMIT_REACHED', () => deviceLimitReached(app.id, user, hardwareId), floating, acting);
  // Each request signs in again: its machine is seen, by the minute rule (docs/machines.md, "Devices").
  if (hardwareId !== null) await deps.store.noteDeviceSeen({ applicationId: app.id, userId: user.id, hardwareId, info: {}, ip: caller.ip, now: deps.clock.now() });
  return user;
}

/** The authenticated user of an integration request, or null when it carries no user credentials.
 * Credentials that are presented are always checked in full, even where anonymous access is allowed. */
export async function authenticateUser(deps: AuthenticateUserDeps, app: ApplicationRecord, p: PresentedUser, caller: Caller, actor: Actor): Promise<UserRecord | null> {
  if (p.bearer !== undefined) return userFromToken(deps, app, p.bearer, caller, actor);
  if (p.licenseCode !== undefined || p.username !== undefined || p.password !== undefined) {
    return userFromLegacyHeaders(deps, app, p, caller, actor);
  }
  return null;
}

/** The caller of a read endpoint (app_context, download): a user, or anonymous where the
 * application allows it. Anonymous callers still answer for their address's ban. */
export async function authenticateReader(deps: ReaderDeps, app: ApplicationRecord, p: PresentedUser, caller: Caller, actor: Actor): Promise<UserRecord | null> {
  const user = await authenticateUser(deps, app, p, caller, actor);
  if (user !== null) return user;
  if (!app.settings.anonymousAccess) throw loginRequired();
  await guardBans(deps, app, { ip: caller.ip }, actor);
  return null;
}
