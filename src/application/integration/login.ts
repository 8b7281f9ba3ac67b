import { type Actor, identified } from '../events/actor.js';
import { admissionCaps } from '../../domain/admission.js';
import { deviceToAdmit, requireHardwareId } from '../../domain/devices.js';
import { DomainError } from '../../domain/errors.js';
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
}

/** What a token login uses: either credential check, the access re-check, the token and its session. */
type LoginDeps = PasswordCheckDeps & LicenseLoginDeps & UserAccessDeps & Pick<Deps, 'clock' | 'ids' | 'secrets' | 'tokens'> & { store: SessionStore & UserStore & EventStore & FloatingSeatStore };

/** Token login: cheap refusals first, then the throttled credential check, then bans (once the user
 * is proven, so propagation may reach their account), timeout and membership, and last the atomic
 * device and session admission, which settles the check's turn (withTurn). */
export async function login(deps: LoginDeps, app: ApplicationRecord, body: LoginBody, caller: Caller, actor: Actor): Promise<{ token: string; expiresAt: number; member: Member }> {
  if (!app.settings.tokenAuth) throw new DomainError('TOKEN_AUTH_DISABLED', 'token authentication is disabled for this application');
  const hardwareId = requireHardwareId(app.settings.deviceAuth, body.hardware_id);
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
      leaseExpiresAt: null,
      refreshFamilyId: null,
      floatingLicenseId: null,
    };
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
    return { token, expiresAt: session.expiresAt, member };
  });
}

/** Ends the session behind a token; a token that is not live is refused like any bad token. */
export async function logout(deps: LiveSessionDeps, app: ApplicationRecord, token: string, actor: Actor): Promise<void> {
  const session = await liveSession(deps, app, token);
  await deps.store.revokeSession(session.id, deps.clock.now(), identified(actor, session.userId));
}
