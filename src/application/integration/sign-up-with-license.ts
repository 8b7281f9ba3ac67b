import { type Actor, identified } from '../events/actor.js';
import { licenseRefusal } from '../../domain/license.js';
import { type BanGuardDeps, guardBans } from '../ban-guard.js';
import { licenseDigest, throttledCheck, type ThrottleDeps } from '../credential-checks.js';
import type { Caller, Deps } from '../deps.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord, DeviceRecord, UserRecord } from '../records.js';
import { acceptDeviceInfo, type DeviceInfo, type DeviceInfoBody } from '../../domain/device-info.js';
import { requireHardwareId } from '../../domain/devices.js';
import { firstDevice, newUser, signUpDevice, type SignUpLimitDeps, withinSignUpLimits } from './sign-up.js';
import { newDevice } from '../new-device.js';

const invalidLicense = () => licenseRefusal('missing', 'sign_up');

/** A generated username: readable, unique in practice, and never derived from the code. */
function generatedUsername(deps: Pick<Deps, 'secrets'>): { username: string; usernameKey: string } {
  const username = `user-${Buffer.from(deps.secrets.randomBytes(8)).toString('hex')}`;
  return { username, usernameKey: username };
}

/** The machine a holder of a code of several seats is told apart by, registered whatever device auth
 * says; without device auth no cap applies to it (docs/plans.md, "Logins by a code of several seats"). */
function holderDevice(deps: Pick<Deps, 'ids'>, user: UserRecord, hardwareId: string | null, info: DeviceInfo): DeviceRecord | null {
  return hardwareId === null ? null : newDevice({ id: deps.ids.uuid(), userId: user.id, hardwareId, registeredAt: user.createdAt }, { info, ip: user.lastIp });
}

/** What a sign-up with a license uses: the throttled code check, the ban check, the limits and the redemption. */
type SignUpWithLicenseDeps = ThrottleDeps & BanGuardDeps & SignUpLimitDeps & Pick<Deps, 'clock' | 'ids' | 'secrets'> & { store: LicenseStore & UserStore };

export async function signUpWithLicense(
  deps: SignUpWithLicenseDeps,
  app: ApplicationRecord,
  body: { code: string; hardware_id?: string; device?: DeviceInfoBody },
  caller: Caller,
  actor: Actor,
): Promise<UserRecord> {
  const hardwareId = signUpDevice(app, body.hardware_id);
  const info = acceptDeviceInfo(body.device);
  const sent = requireHardwareId(false, body.hardware_id);
  const digest = licenseDigest(deps, body.code);
  const now = deps.clock.now();
  // A license code is a credential: guesses count against the address. There is no account to
  // lock yet, and locking the code itself would let a leak of it lock out its rightful owner.
  const attempt = { applicationId: app.id, accountKey: null, ip: caller.ip, now };
  // Only "is this a license of the application" is throttled; bans and single use come after.
  const license = await throttledCheck(deps, attempt, async () => (digest === null ? null : deps.store.findLicenseByDigest(app.id, digest)), actor);
  // A valid code is proven; the device it came with is not (no user owns it yet), so propagation
  // reaches the address and the license.
  const ids = { ip: caller.ip, hardwareId: body.hardware_id ?? null, licenseIds: license === null ? [] : [license.id] };
  await guardBans(deps, app, ids, actor);
  if (license === null || digest === null) throw invalidLicense();
  return withinSignUpLimits(
    deps,
    app,
    caller,
    async () => {
      const user = newUser(deps, app, { ...generatedUsername(deps), credentialType: 'license_code', passwordHash: null }, caller);
      const device = firstDevice(deps, app, user, hardwareId, info);
      // The new user is who acts: the events of the sign-up name them.
      const { user: created } = await deps.store.signUpWithLicense(
        {
          applicationId: app.id,
          licenseDigest: digest,
          user,
          device,
          holderDevice: device ?? holderDevice(deps, user, sent, info),
          adjustmentId: deps.ids.uuid(),
          now,
        },
        identified(actor, user.id),
      );
      await deps.store.recordIp(created.id, caller.ip, now);
      return created;
    },
    actor,
  );
}
