import { type Actor, identified } from '../events/actor.js';
import { admissionCaps } from '../../domain/admission.js';
import { acceptDeviceInfo, type DeviceInfoBody } from '../../domain/device-info.js';
import { deviceToAdmit, requireHardwareId } from '../../domain/devices.js';
import { DomainError } from '../../domain/errors.js';
import { openingLease } from '../../domain/leases.js';
import { requireRememberedMachine } from '../../domain/refresh-tokens.js';
import { issueRefreshToken } from './refresh-tokens.js';
import { liveSession, type LiveSessionDeps } from './authenticate-user.js';
import { type LicenseLoginDeps, type LoginCredentials, type PasswordCheckDeps, verifyCredentials, withTurn } from '../credential-checks.js';
import type { Caller, Deps } from '../deps.js';
import type { SessionStore } from '../ports/session-store.js';
import type { FloatingSeatStore } from '../ports/floating-seat-store.js';
import { floatingLeaseEnd } from '../../domain/floating-seats.js';
import { notingExhaustedSeats } from '../floating/seats-exhausted.js';
import type { EventStore } from '../ports/event-store.js';
import { deviceLimitReached } from '../events/refusals.js';
import { recordingRefusal } from '../events/record-refusal.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord } from '../records.js';
import { type Member, memberOf } from '../member.js';
import { assertUserAccess, type UserAccessDeps } from '../user-access.js';

export interface LoginBody {
  credentials: LoginCredentials;
  hardware_id?: string;
  device?: DeviceInfoBody;
  /** Ask for a refresh token bound to the hardware id (docs/machines.md, "Refresh tokens"). */
  remember?: boolean;
}

/** A login's answer; `refresh` only with `remember: true` on an application that issues them. */
export interface LoggedIn {
  token: string;
  expiresAt: number;
  member: Member;
  refresh: { token: string; expiresAt: number } | null;
}

/** What a token login uses: either credential check, the access re-check, the token and its session. */
type LoginDeps = PasswordCheckDeps & LicenseLoginDeps & UserAccessDeps & Pick<Deps, 'clock' | 'ids' | 'secrets' | 'tokens'> & { store: SessionStore & UserStore & EventStore & FloatingSeatStore };

/** Token login: cheap refusals first, then the throttled credential check, then bans (once the user
 * is proven, so propagation may reach their account), timeout and membership, and last the atomic
 * device and session admission, which settles the check's turn (withTurn). */
export async function login(deps: LoginDeps, app: ApplicationRecord, body: LoginBody, caller: Caller, actor: Actor): Promise<LoggedIn> {
  if (!app.settings.tokenAuth) throw new DomainError('TOKEN_AUTH_DISABLED', 'token authentication is disabled for this application');
  const hardwareId = requireHardwareId(app.settings.deviceAuth, body.hardware_id);
  const deviceInfo = acceptDeviceInfo(body.device);
  // A refresh token is bound to its machine; none is issued where the application turned them off.
  const rememberOn = body.remember === true ? requireRememberedMachine(hardwareId) : null;
  const ttlDays = app.settings.refreshTtlDays;
  const { found: user, turn } = await verifyCredentials(deps, app, body.credentials, caller, actor, hardwareId);
  const acting = identified(actor, user.id);
  return withTurn(deps, turn, acting, async (settled) => {
    // The plans the answer shows and the base plan's caps, read beside the access re-check
    // (docs/plans.md, "Entitlements", "Caps").
    const [, member] = await Promise.all([assertUserAccess(deps, app, user, caller, acting, hardwareId), memberOf(deps, user)]);
    const now = deps.clock.now();
    const session = {
      id: deps.ids.uuid(),
      applicationId: app.id,
      userId: user.id,
      hardwareId,
      createdAt: now,
      expiresAt: now + app.settings.sessionTtlSeconds * 1000,
      revokedAt: null,
      leaseExpiresAt: openingLease(now, app.settings.heartbeatSeconds),
      refreshFamilyId: rememberOn === null || ttlDays === null ? null : deps.ids.uuid(),
      floatingLicenseId: null,
    };
    const refresh =
      session.refreshFamilyId === null || rememberOn === null || ttlDays === null
        ? null
        : issueRefreshToken(deps, { applicationId: app.id, userId: user.id, familyId: session.refreshFamilyId, hardwareId: rememberOn, sessionId: session.id, ttlDays, now });
    const token = await deps.tokens.issue({
      sessionId: session.id,
      applicationId: app.id,
      userId: user.id,
      hardwareId,
      expiresAt: session.expiresAt,
    });
    const caps = admissionCaps(user, member.plans.base, app.settings);
    const open = () =>
      deps.store.openSession(
        {
          session: { ...session, tokenDigest: deps.secrets.digest(token) },
          device: deviceToAdmit(app.settings.deviceAuth, hardwareId, caps.devices, () => deps.ids.uuid()),
          cap: caps.sessions,
          now,
          ip: caller.ip,
          turn: settled,
          floatingLease: floatingLeaseEnd(now, app.settings.heartbeatSeconds),
          deviceInfo,
          ...(refresh === null ? {} : { refreshToken: refresh.record }),
        },
        acting,
      );
    const who = { applicationId: app.id, userId: user.id, hardwareId };
    await recordingRefusal(
      deps,
      'DEVICE_LIMIT_REACHED',
      () => deviceLimitReached(app.id, user, hardwareId),
      () => notingExhaustedSeats(deps, who, open, acting),
      acting,
    );
    return { token, expiresAt: session.expiresAt, member, refresh: refresh === null ? null : { token: refresh.token, expiresAt: refresh.record.expiresAt } };
  });
}

/** Ends the session behind a token; a token that is not live is refused like any bad token. */
export async function logout(deps: LiveSessionDeps, app: ApplicationRecord, token: string, actor: Actor): Promise<void> {
  const session = await liveSession(deps, app, token);
  await deps.store.revokeSession(session.id, deps.clock.now(), identified(actor, session.userId));
}
