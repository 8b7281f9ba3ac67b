import type { Actor } from '../events/actor.js';
import { acceptNewPassword, acceptUsername } from '../../domain/credentials-policy.js';
import { admissionCaps } from '../../domain/admission.js';
import { acceptDeviceInfo, type DeviceInfo, type DeviceInfoBody } from '../../domain/device-info.js';
import { admitDevice } from '../../domain/devices.js';
import { DomainError } from '../../domain/errors.js';
import { requireHardwareId } from '../../domain/devices.js';
import { throttledCheck, type ThrottleDeps } from '../credential-checks.js';
import { emptyMembership } from '../../domain/membership.js';
import { type BanGuardDeps, guardBans } from '../ban-guard.js';
import { addressBucket } from '../../domain/ip-address.js';
import type { Caller, Deps } from '../deps.js';
import { withPasswordWork } from '../password-work.js';
import type { ThrottleStore } from '../ports/throttle-store.js';
import type { EventStore } from '../ports/event-store.js';
import { signUpLimited } from '../events/refusals.js';
import { toIso } from '../../domain/time.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord, DeviceRecord, UserRecord } from '../records.js';
import { newDevice } from '../new-device.js';

/** The device a sign-up registers: required with device auth (401 DEVICE_REQUIRED, docs/choices.md "Choices where the spec is silent"). */
export function signUpDevice(app: ApplicationRecord, hardwareId: string | undefined): string | null {
  const sent = requireHardwareId(app.settings.deviceAuth, hardwareId);
  return app.settings.deviceAuth ? sent : null;
}

export function newUser(
  deps: Pick<Deps, 'clock' | 'ids'>,
  app: ApplicationRecord,
  fields: Pick<UserRecord, 'username' | 'usernameKey' | 'credentialType' | 'passwordHash'>,
  caller: Caller,
): UserRecord {
  return {
    ...fields,
    id: deps.ids.uuid(),
    applicationId: app.id,
    licenseId: null,
    // No override: the base plan's caps or the application's apply (docs/plans.md, "Caps").
    allowedDevices: null,
    allowedSessions: null,
    membership: emptyMembership,
    timeout: null,
    lastIp: caller.ip,
    createdAt: deps.clock.now(),
    lastDeviceResetAt: null,
    planId: null,
    entitlements: [],
    trialStartedAt: null,
    holdsAddOns: false,
  };
}

/** The first device, within the caps of a user who holds no plan yet. */
export function firstDevice(deps: Pick<Deps, 'ids'>, app: ApplicationRecord, user: UserRecord, hardwareId: string | null, info: DeviceInfo): DeviceRecord | null {
  if (hardwareId === null) return null;
  admitDevice([], [], hardwareId, admissionCaps(user, null, app.settings).devices);
  return newDevice({ id: deps.ids.uuid(), userId: user.id, hardwareId, registeredAt: user.createdAt }, { info, ip: user.lastIp });
}

/** What the sign-up limits use. */
export type SignUpLimitDeps = Pick<Deps, 'clock' | 'signUpLimits'> & { store: ThrottleStore & EventStore };

/** Runs a sign-up under the address's and the application's sign-up limits: counted before the work
 * and given back if it fails, so parallel sign-ups cannot pass a limit. Filling the application's
 * window records `sign_up.limited` (docs/choices.md, "Throttling"). */
export async function withinSignUpLimits<T>(deps: SignUpLimitDeps, app: ApplicationRecord, caller: Caller, work: () => Promise<T>, actor: Actor): Promise<T> {
  const slot = { applicationId: app.id, address: addressBucket(caller.ip), now: deps.clock.now() };
  const limits = { perAddress: deps.signUpLimits.perAddress, perApplication: app.settings.signUpsPerHour };
  const { applicationFilledUntil } = await deps.store.reserveSignUp(slot, limits);
  if (applicationFilledUntil !== null && limits.perApplication !== null) {
    await deps.store.recordEvent(signUpLimited(app, limits.perApplication, toIso(applicationFilledUntil)), slot.now, actor);
  }
  try {
    return await work();
  } catch (error) {
    await deps.store.releaseSignUp({ ...slot, now: deps.clock.now() }, limits);
    throw error;
  }
}

/** What a sign-up uses: the ban check, the limits, the throttled name check, the hash and the new user. */
type SignUpDeps = BanGuardDeps & SignUpLimitDeps & ThrottleDeps & Pick<Deps, 'clock' | 'hasher' | 'ids'> & { store: UserStore };

export async function signUp(
  deps: SignUpDeps,
  app: ApplicationRecord,
  body: { username: string; password: string; hardware_id?: string; device?: DeviceInfoBody },
  caller: Caller,
  actor: Actor,
): Promise<UserRecord> {
  const { username, key } = acceptUsername(body.username);
  const password = acceptNewPassword(body.password, app.settings.passwordMinLength);
  const hardwareId = signUpDevice(app, body.hardware_id);
  const info = acceptDeviceInfo(body.device);
  // A sent hardware id is checked even where device auth is off. A banned one gets the address
  // it came from banned by propagation; the id itself is registered to no one, so a banned
  // address propagates nothing to it.
  await guardBans(deps, app, { ip: caller.ip, hardwareId: body.hardware_id ?? null }, actor);
  // The sign-up limits also bound sign-up as a username oracle: a free name makes an account
  // (counted here), a taken one counts as a failure against the address.
  return withinSignUpLimits(
    deps,
    app,
    caller,
    async () => {
      const passwordHash = await withPasswordWork(deps, app.id, async (work) => {
        // Refuse a taken name before spending a hash on it (the unique index still settles races).
        const free = await throttledCheck(
          deps,
          { applicationId: app.id, accountKey: null, ip: caller.ip, now: deps.clock.now() },
          async () => ((await deps.store.findUserByUsernameKey(app.id, key)) === null ? true : null),
          actor,
        );
        if (free === null) {
          throw new DomainError('USERNAME_TAKEN', 'this username is taken', { errors: [{ field: 'username', message: 'is taken' }] });
        }
        return work.hash(password);
      });
      const user = newUser(deps, app, { username, usernameKey: key, credentialType: 'username_password', passwordHash }, caller);
      const created = await deps.store.signUp({ user, device: firstDevice(deps, app, user, hardwareId, info), now: user.createdAt }, actor);
      await deps.store.recordIp(created.id, caller.ip, user.createdAt);
      return created;
    },
    actor,
  );
}
