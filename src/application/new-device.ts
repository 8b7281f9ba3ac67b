// A device as first registered: seen now, with what its machine said about itself, if anything
// (docs/machines.md, "Devices").
import type { DeviceInfo } from '../domain/device-info.js';
import type { DeviceRecord } from './records.js';

/** What a machine said about itself when seen, and the address it was seen from. */
export interface Sighting {
  info: DeviceInfo;
  ip: string | null;
}

export const newDevice = (d: Pick<DeviceRecord, 'id' | 'userId' | 'hardwareId' | 'registeredAt'>, seen?: Sighting): DeviceRecord => ({
  ...d,
  name: seen?.info.name ?? null,
  platform: seen?.info.platform ?? null,
  appVersion: seen?.info.appVersion ?? null,
  lastSeenAt: d.registeredAt,
  lastIp: seen?.ip ?? null,
});
