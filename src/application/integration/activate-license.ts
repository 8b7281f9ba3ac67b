import { type Actor, identified } from '../events/actor.js';
import { deviceLimitReached } from '../events/refusals.js';
import { recordingRefusal } from '../events/record-refusal.js';
import { deviceToAdmit, requireHardwareId } from '../../domain/devices.js';
import { licenseRefusal } from '../../domain/license.js';
import { banRefusal, type BanGuardDeps, guardBans } from '../ban-guard.js';
import { accountKeys, licenseDigest, type PasswordCheckDeps, recordLockout, signedInFrom, throttledCheck, verifyPassword, withTurn } from '../credential-checks.js';
import type { Caller, Deps } from '../deps.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { ActivateLicenseInput, UserStore } from '../ports/user-store.js';
import type { AdjustmentRecord, ApplicationRecord, UserRecord } from '../records.js';
import { userProof } from '../user-access.js';
import { capsFor } from '../member.js';

const unknownCode = () => licenseRefusal('missing', 'activation');

/** What an activation uses: the password check (with the throttle), the ban check, and the redemption. */
type ActivateLicenseDeps = PasswordCheckDeps & BanGuardDeps & Pick<Deps, 'clock' | 'ids' | 'secrets'> & { store: LicenseStore & UserStore };

type ActivateBody = { code: string; username: string; password: string; hardware_id?: string };

/** Adds a license to a username-and-password account: the account is proven first, then the code is
 * a second throttled credential. One transaction settles both turns and redeems
 * (UserStore.redeemWithTurns) (docs/choices.md, "Throttling"). */
export async function activateLicense(deps: ActivateLicenseDeps, app: ApplicationRecord, body: ActivateBody, caller: Caller, actor: Actor): Promise<AdjustmentRecord> {
  const hardwareId = requireHardwareId(app.settings.deviceAuth, body.hardware_id);
  const { found: user, turn } = await verifyPassword(deps, app, body.username, body.password, caller, actor, null);
  const acting = identified(actor, user.id);
  const digest = licenseDigest(deps, body.code);
  // The code has its own counter for the account presenting it, and only "is this a license of the
  // application" is throttled: a user guessing codes locks only themselves, and a leaked code locks
  // none (docs/choices.md, "Throttling").
  const codeKey = accountKeys.activation(user.usernameKey);
  // Read before the code's turn is taken, answered only after it: an error meanwhile settles the password's turn alone.
  const { license, refusal } = await withTurn(deps, turn, acting, async () => {
    const found = digest === null ? null : await deps.store.findLicenseByDigest(app.id, digest);
    const ids = { ip: caller.ip, hardwareId, userId: user.id, licenseIds: found === null ? [] : [found.id] };
    return { license: found, refusal: await banRefusal(deps, app, ids, acting, userProof(deps, app, user)) };
  });
  const now = deps.clock.now();
  const devices = (await capsFor(deps, app, user)).devices;
  const redemption = license === null || digest === null || refusal !== null ? null : redemptionOf(deps, app, user, digest, hardwareId, devices, now);
  const password = { attempt: { ...turn, now }, limits: deps.limits };
  const code = { attempt: { ...turn, accountKey: codeKey, now }, found: license !== null };
  const outcome = await recordingRefusal(
    deps,
    'DEVICE_LIMIT_REACHED',
    () => deviceLimitReached(app.id, user, hardwareId),
    () => deps.store.redeemWithTurns({ password, code, redemption }, acting),
    acting,
  );
  switch (outcome.kind) {
    case 'redeemed':
      return outcome.adjustment;
    case 'settled':
      if (outcome.lockedUntil !== null) await recordLockout(deps, code.attempt, outcome.lockedUntil, now, acting);
      if (refusal !== null) await refusal();
      throw unknownCode();
    default:
      // The code's turn was not to be had at once: it is waited for, or refused, as on its own.
      return redeemAfterPassword(deps, app, user, body.code, hardwareId, caller, acting);
  }
}

/** The redemption of `digest` for `user`, its device admitted with it. */
function redemptionOf(deps: ActivateLicenseDeps, app: ApplicationRecord, user: UserRecord, digest: string, hardwareId: string | null, devices: number, now: number): ActivateLicenseInput {
  return {
    applicationId: app.id,
    userId: user.id,
    licenseDigest: digest,
    adjustmentId: deps.ids.uuid(),
    device: deviceToAdmit(app.settings.deviceAuth, hardwareId, devices, () => deps.ids.uuid()),
    now,
  };
}

/** The code's check, bans and redemption one after the other, once the password's turn is settled. */
async function redeemAfterPassword(
  deps: ActivateLicenseDeps,
  app: ApplicationRecord,
  user: UserRecord,
  presented: string,
  hardwareId: string | null,
  caller: Caller,
  acting: Actor,
): Promise<AdjustmentRecord> {
  const digest = licenseDigest(deps, presented);
  const now = deps.clock.now();
  const attempt = { applicationId: app.id, accountKey: accountKeys.activation(user.usernameKey), ip: caller.ip, now };
  const license = await throttledCheck(
    deps,
    attempt,
    async () => (digest === null ? null : deps.store.findLicenseByDigest(app.id, digest)),
    acting,
    () => signedInFrom(deps, user, caller),
  );
  const licenseIds = license === null ? [] : [license.id];
  await guardBans(deps, app, { ip: caller.ip, hardwareId, userId: user.id, licenseIds }, acting, userProof(deps, app, user));
  if (license === null || digest === null) throw unknownCode();
  const devices = (await capsFor(deps, app, user)).devices;
  // The device is admitted in the redemption's own transaction: a refused activation takes no slot.
  return recordingRefusal(
    deps,
    'DEVICE_LIMIT_REACHED',
    () => deviceLimitReached(app.id, user, hardwareId),
    () => deps.store.activateLicense(redemptionOf(deps, app, user, digest, hardwareId, devices, now), acting),
    acting,
  );
}
