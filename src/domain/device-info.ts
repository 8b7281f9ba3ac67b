// What a client says about its machine, and when a sighting of it is written (docs/machines.md,
// "Devices"): plain text, trimmed, bounded; last_seen_at moves at most once a minute.
import { validationError } from './errors.js';
import { type Instant, MINUTE_MS } from './time.js';

export const DEVICE_NAME_MAX = 100;
export const DEVICE_PLATFORM_MAX = 50;
export const DEVICE_APP_VERSION_MAX = 50;

/** The device object of a login or sign-up, as sent. */
export interface DeviceInfoBody {
  name?: string;
  platform?: string;
  app_version?: string;
}

/** The fields a client said, accepted: only those given are present; null clears one. */
export interface DeviceInfo {
  name?: string | null;
  platform?: string | null;
  appVersion?: string | null;
}

/** The stored device fields a sighting compares with. */
export interface DeviceSighting {
  name: string | null;
  platform: string | null;
  appVersion: string | null;
  lastSeenAt: Instant;
  lastIp: string | null;
}

// C0, DEL and C1 controls, and the line and paragraph separators: none belongs in a one-line label.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
const LONE_SURROGATE = /\p{Cs}/u;

function acceptText(field: string, value: string | undefined, max: number): string | null | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (LONE_SURROGATE.test(text)) throw validationError(field, 'must be valid Unicode text');
  if (CONTROL.test(text)) throw validationError(field, 'must not contain control characters');
  // Counted in code points, so a name in any script gets the same room.
  if ([...text].length > max) throw validationError(field, `must be at most ${max} characters`);
  return text === '' ? null : text;
}

/** The device object of a request, accepted (VALIDATION_FAILED naming `device.<field>`). */
export function acceptDeviceInfo(body: DeviceInfoBody | undefined): DeviceInfo {
  if (body === undefined) return {};
  const info: DeviceInfo = {};
  const name = acceptText('device.name', body.name, DEVICE_NAME_MAX);
  const platform = acceptText('device.platform', body.platform, DEVICE_PLATFORM_MAX);
  const appVersion = acceptText('device.app_version', body.app_version, DEVICE_APP_VERSION_MAX);
  if (name !== undefined) info.name = name;
  if (platform !== undefined) info.platform = platform;
  if (appVersion !== undefined) info.appVersion = appVersion;
  return info;
}

/** Whether a sighting at `now` moves last_seen_at: a minute or more after the stored one. */
export const seenIsDue = (lastSeenAt: Instant, now: Instant): boolean => now - lastSeenAt >= MINUTE_MS;

/** What a sighting writes to a stored device, or null when nothing is to be written: the fields
 * said that differ, last_seen_at once a minute, and a changed last_ip with either. */
export function deviceSeenUpdate(stored: DeviceSighting, info: DeviceInfo, ip: string | null, now: Instant): Partial<DeviceSighting> | null {
  const changed: Partial<DeviceSighting> = {};
  if (info.name !== undefined && info.name !== stored.name) changed.name = info.name;
  if (info.platform !== undefined && info.platform !== stored.platform) changed.platform = info.platform;
  if (info.appVersion !== undefined && info.appVersion !== stored.appVersion) changed.appVersion = info.appVersion;
  const due = seenIsDue(stored.lastSeenAt, now);
  if (!due && Object.keys(changed).length === 0) return null;
  if (due) changed.lastSeenAt = now;
  if (ip !== null && ip !== stored.lastIp) changed.lastIp = ip;
  return changed;
}
