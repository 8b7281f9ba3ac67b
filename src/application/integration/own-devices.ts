// A user's own devices (docs/api.md, GET and DELETE /devices): listed with the caller's machine
// marked, and dropped under the same cooldown as a reset of them all (docs/machines.md, "Devices").
import { resetCooldownHours } from '../../domain/device-reset.js';
import { loginRequired } from '../../domain/errors.js';
import type { Instant } from '../../domain/time.js';
import type { Caller, Deps } from '../deps.js';
import { type Actor, identified } from '../events/actor.js';
import type { DeviceStore } from '../ports/device-store.js';
import type { ApplicationRecord, DeviceRecord, UserRecord } from '../records.js';
import { type AuthenticateUserDeps, authenticateUser, type PresentedUser } from './authenticate-user.js';

type OwnDevicesDeps = AuthenticateUserDeps & Pick<Deps, 'clock'> & { store: DeviceStore };

async function signedInUser(deps: OwnDevicesDeps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, actor: Actor): Promise<UserRecord> {
  const user = await authenticateUser(deps, app, presented, caller, actor);
  if (user === null) throw loginRequired();
  return user;
}

/** The machine the request comes from: its session's hardware id (signed into the token), or the legacy header's. */
function callingMachine(deps: OwnDevicesDeps, presented: PresentedUser): string | null {
  if (presented.bearer !== undefined) return deps.tokens.read(presented.bearer)?.hardwareId ?? null;
  return presented.hardwareId ?? null;
}

export async function listOwnDevices(deps: OwnDevicesDeps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, actor: Actor): Promise<Array<{ device: DeviceRecord; current: boolean }>> {
  const user = await signedInUser(deps, app, presented, caller, actor);
  const machine = callingMachine(deps, presented);
  return (await deps.store.listDevices(app.id, user.id)).map((device) => ({ device, current: device.hardwareId === machine }));
}

export async function dropOwnDevice(deps: OwnDevicesDeps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, deviceId: string, actor: Actor): Promise<{ nextResetAt: Instant }> {
  // Off (the default): refused before the credentials are checked, as POST /reset_devices is.
  const cooldownHours = resetCooldownHours(app.settings.deviceResetCooldownHours);
  const user = await signedInUser(deps, app, presented, caller, actor);
  const input = { applicationId: app.id, userId: user.id, deviceId, cooldownHours, now: deps.clock.now() };
  return deps.store.dropDevice(input, identified(actor, user.id));
}
