// Device reset by the user (docs/api.md, POST /reset_devices): full credentials, never a session token alone,
// so a stolen token cannot move a seat. Credentials, bans, timeouts and throttling as at login;
// the cooldown is decided atomically by the store (UserStore.resetDevices).
import { resetCooldownHours } from '../../domain/device-reset.js';
import type { Instant } from '../../domain/time.js';
import { checkCredentials, type LicenseLoginDeps, type LoginCredentials, type PasswordCheckDeps } from '../credential-checks.js';
import type { Caller, Deps } from '../deps.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord } from '../records.js';
import { assertUserAccess, type UserAccessDeps } from '../user-access.js';
import { type Actor, identified } from '../events/actor.js';

type ResetDevicesDeps = PasswordCheckDeps & LicenseLoginDeps & UserAccessDeps & Pick<Deps, 'clock'> & { store: UserStore };

export async function resetDevices(deps: ResetDevicesDeps, app: ApplicationRecord, credentials: LoginCredentials, caller: Caller, actor: Actor): Promise<{ nextResetAt: Instant }> {
  // Off (the default): refused before any credential is checked, as a disabled login method is.
  const cooldownHours = resetCooldownHours(app.settings.deviceResetCooldownHours);
  const user = await checkCredentials(deps, app, credentials, caller, actor);
  const acting = identified(actor, user.id);
  await assertUserAccess(deps, app, user, caller, acting, null);
  return deps.store.resetDevices({ applicationId: app.id, userId: user.id, cooldownHours, now: deps.clock.now() }, acting);
}
