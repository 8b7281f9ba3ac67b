import { acceptNewPassword, acceptUsername } from '../../domain/credentials-policy.js';
import { admitDevice } from '../../domain/devices.js';
import { DomainError, validationError } from '../../domain/errors.js';
import { emptyMembership } from '../../domain/membership.js';
import { guardBans } from '../ban-guard.js';
import type { Caller, Deps } from '../deps.js';
import type { ApplicationRecord, DeviceRecord, UserRecord } from '../ports.js';

/** Sign-up is not authentication: a missing hardware id is a missing field (422), not a 401. */
export function signUpHardwareId(app: ApplicationRecord, hardwareId: string | undefined): string | null {
  if (!app.settings.deviceAuth) return null;
  if (!hardwareId) throw validationError('hardware_id', 'is required by this application');
  return hardwareId;
}

export function newUser(deps: Deps, app: ApplicationRecord, fields: Pick<UserRecord, 'username' | 'usernameKey' | 'credentialType' | 'passwordHash'>, caller: Caller): UserRecord {
  return {
    ...fields,
    id: deps.ids.uuid(),
    applicationId: app.id,
    licenseId: null,
    allowedDevices: app.settings.defaultAllowedDevices,
    allowedSessions: app.settings.defaultAllowedSessions,
    membership: emptyMembership,
    timeout: null,
    lastIp: caller.ip,
    createdAt: deps.clock.now(),
  };
}

export function firstDevice(deps: Deps, user: UserRecord, hardwareId: string | null): DeviceRecord | null {
  if (hardwareId === null) return null;
  admitDevice([], hardwareId, user.allowedDevices);
  return { id: deps.ids.uuid(), userId: user.id, hardwareId, registeredAt: user.createdAt };
}

export async function signUp(
  deps: Deps,
  app: ApplicationRecord,
  body: { username: string; password: string; hardware_id?: string },
  caller: Caller,
): Promise<UserRecord> {
  const { username, key } = acceptUsername(body.username);
  const password = acceptNewPassword(body.password, app.settings.passwordMinLength);
  const hardwareId = signUpHardwareId(app, body.hardware_id);
  await guardBans(deps, app, { ip: caller.ip, hardwareId });
  // Refuse a taken name before spending a hash on it; the unique index still settles races.
  if ((await deps.store.findUserByUsernameKey(app.id, key)) !== null) {
    throw new DomainError('USERNAME_TAKEN', 'this username is taken', { errors: [{ field: 'username', message: 'is taken' }] });
  }
  const passwordHash = await deps.hasher.hash(password);
  const user = newUser(deps, app, { username, usernameKey: key, credentialType: 'username_password', passwordHash }, caller);
  const created = await deps.store.signUp({ user, device: firstDevice(deps, user, hardwareId), now: user.createdAt });
  await deps.store.recordIp(created.id, caller.ip, user.createdAt);
  return created;
}
