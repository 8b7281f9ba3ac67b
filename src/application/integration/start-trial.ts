// Starting the application's trial (docs/api.md, POST /start_trial): full credentials in the body,
// as reset_devices takes them, since a user eligible for a trial has no active membership and so
// no session. The store decides and grants atomically (TrialStore.startTrial).
import { deviceToAdmit } from '../../domain/devices.js';
import { trialNotOffered } from '../../domain/trials.js';
import { checkCredentials, type LicenseLoginDeps, type LoginCredentials, type PasswordCheckDeps } from '../credential-checks.js';
import type { Caller, Deps } from '../deps.js';
import { type Actor, identified } from '../events/actor.js';
import { recordingRefusal } from '../events/record-refusal.js';
import { deviceLimitReached } from '../events/refusals.js';
import type { TrialStore } from '../ports/trial-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { AdjustmentRecord, ApplicationRecord, UserRecord } from '../records.js';
import { assertNotBarred, type UserAccessDeps } from '../user-access.js';
import { capsFor } from '../member.js';

type StartTrialDeps = PasswordCheckDeps & LicenseLoginDeps & UserAccessDeps & Pick<Deps, 'clock' | 'ids' | 'secrets'> & { store: TrialStore & UserStore };

export async function startTrial(
  deps: StartTrialDeps,
  app: ApplicationRecord,
  body: { credentials: LoginCredentials; hardware_id: string },
  caller: Caller,
  actor: Actor,
): Promise<{ user: UserRecord; adjustment: AdjustmentRecord }> {
  // No trial offered: refused before any credential is checked, as a disabled device reset is.
  if (app.settings.trialPlanId === null) throw trialNotOffered();
  const hardwareId = body.hardware_id;
  const user = await checkCredentials(deps, app, body.credentials, caller, actor, hardwareId);
  const acting = identified(actor, user.id);
  // Bans and timeout, but no membership: a trial is for those without one.
  await assertNotBarred(deps, app, user, caller, acting, hardwareId);
  // The user holds no plan yet (else not eligible): the device is admitted under today's caps.
  const { devices } = await capsFor(deps, app, user);
  const input = {
    applicationId: app.id,
    userId: user.id,
    hardwareDigest: deps.secrets.digest(hardwareId),
    adjustmentId: deps.ids.uuid(),
    device: deviceToAdmit(app.settings.deviceAuth, hardwareId, devices, () => deps.ids.uuid()),
    now: deps.clock.now(),
  };
  return recordingRefusal(
    deps,
    'DEVICE_LIMIT_REACHED',
    () => deviceLimitReached(app.id, user, hardwareId),
    () => deps.store.startTrial(input, acting),
    acting,
  );
}
