import { type Actor, identified } from '../events/actor.js';
import { deviceLimitReached } from '../events/refusals.js';
import { recordingRefusal } from '../events/record-refusal.js';
import { requireHardwareId } from '../../domain/devices.js';
import { licenseRefusal } from '../../domain/license.js';
import { type BanGuardDeps, guardBans } from '../ban-guard.js';
import { accountKeys, checkPassword, licenseDigest, type PasswordCheckDeps, signedInFrom, throttledCheck } from '../credential-checks.js';
import type { Caller, Deps } from '../deps.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { AdjustmentRecord, ApplicationRecord } from '../records.js';
import { userProof } from '../user-access.js';

const unknownCode = () => licenseRefusal('missing', 'activation');

/** What an activation uses: the password check (with the throttle), the ban check, and the redemption. */
type ActivateLicenseDeps = PasswordCheckDeps & BanGuardDeps & Pick<Deps, 'clock' | 'ids' | 'secrets'> & { store: LicenseStore & UserStore };

/**
 * Adds a license to an existing username-and-password account. The account is proven first; the
 * code is then a second throttled credential, redeemed once and atomically.
 */
export async function activateLicense(
  deps: ActivateLicenseDeps,
  app: ApplicationRecord,
  body: { code: string; username: string; password: string; hardware_id?: string },
  caller: Caller,
  actor: Actor,
): Promise<AdjustmentRecord> {
  const hardwareId = requireHardwareId(app.settings.deviceAuth, body.hardware_id);
  const user = await checkPassword(deps, app, body.username, body.password, caller, actor);
  const acting = identified(actor, user.id);
  const digest = licenseDigest(deps, body.code);
  const now = deps.clock.now();
  // The code is a second credential with its own counter for the account presenting it: a user
  // guessing codes locks only themselves, and a leaked code tried by many users locks none.
  // Only the question "is this a license of the application" is throttled; bans, the device cap
  // and single use are decided after it and are not guesses.
  const attempt = { applicationId: app.id, accountKey: accountKeys.activation(user.usernameKey), ip: caller.ip, now };
  const license = await throttledCheck(
    deps,
    attempt,
    async () => (digest === null ? null : deps.store.findLicenseByDigest(app.id, digest)),
    acting,
    () => signedInFrom(deps, user, caller),
  );
  // The licenses the user redeemed already are matched with the user (RequestIdentifiers.userId).
  const licenseIds = license === null ? [] : [license.id];
  await guardBans(deps, app, { ip: caller.ip, hardwareId, userId: user.id, licenseIds }, acting, userProof(deps, app, user));
  if (license === null || digest === null) throw unknownCode();
  // The device is admitted in the redemption's own transaction: a refused activation takes no slot.
  const adjustment = await recordingRefusal(
    deps,
    'DEVICE_LIMIT_REACHED',
    () => deviceLimitReached(app.id, user, hardwareId),
    () =>
      deps.store.activateLicense(
        {
          applicationId: app.id,
          userId: user.id,
          licenseDigest: digest,
          adjustmentId: deps.ids.uuid(),
          device: app.settings.deviceAuth && hardwareId !== null ? { hardwareId, allowed: user.allowedDevices, newDeviceId: deps.ids.uuid() } : null,
          now,
        },
        acting,
      ),
    acting,
  );
  return adjustment;
}
