import { DomainError } from './errors.js';

export interface RegisteredDevice {
  id: string;
  hardwareId: string;
}

export type DeviceAdmission = { kind: 'known'; deviceId: string } | { kind: 'register' };

/** Whether a device may be used: a known hardware id passes; a new one registers while the user's
 * machines (registered devices and holders of unexpired license files, `heldByFiles`, each counted
 * once) stay within `allowed` (docs/api.md, "Offline license files"). */
export function admitDevice(registered: readonly RegisteredDevice[], heldByFiles: readonly string[], hardwareId: string, allowed: number): DeviceAdmission {
  const known = registered.find((d) => d.hardwareId === hardwareId);
  if (known) return { kind: 'known', deviceId: known.id };
  const machines = new Set([...registered.map((d) => d.hardwareId), ...heldByFiles]);
  if (!machines.has(hardwareId) && machines.size >= allowed) {
    // Say why when a removed device's file still counts: the owner sees fewer devices than the cap.
    const byFiles = heldByFiles.some((h) => !registered.some((d) => d.hardwareId === h));
    const why = byFiles ? " (an unexpired offline license file holds its machine's slot until it expires)" : '';
    throw new DomainError('DEVICE_LIMIT_REACHED', `this account has reached its number of allowed devices${why}`);
  }
  return { kind: 'register' };
}

/** A device for the store to admit (admitDevice) in the same transaction as a session, a legacy
 * seat or a redemption: registered under `newDeviceId` if new and within `allowed`. */
export interface DeviceToAdmit {
  hardwareId: string;
  allowed: number;
  newDeviceId: string;
}

/** The device a login, legacy seat or redemption admits: with device auth and a hardware id, else
 * none; a new device's id is drawn only then. */
export function deviceToAdmit(deviceAuth: boolean, hardwareId: string | null, allowed: number, newDeviceId: () => string): DeviceToAdmit | null {
  return deviceAuth && hardwareId !== null ? { hardwareId, allowed, newDeviceId: newDeviceId() } : null;
}

/** Device auth applies when the application enables it; a missing hardware id is then refused. */
export function requireHardwareId(deviceAuth: boolean, hardwareId: string | undefined | null): string | null {
  // An empty id is no id, with or without device auth: it must not name a device for session replacement.
  if (!deviceAuth) return hardwareId || null;
  if (hardwareId === undefined || hardwareId === null || hardwareId === '') {
    throw new DomainError('DEVICE_REQUIRED', 'a hardware id is required by this application');
  }
  return hardwareId;
}
