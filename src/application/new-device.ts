// A device as first registered: seen now, nothing said about it yet (docs/machines.md, "Devices").
import type { DeviceRecord } from './records.js';

export const newDevice = (d: Pick<DeviceRecord, 'id' | 'userId' | 'hardwareId' | 'registeredAt'>): DeviceRecord => ({
  ...d,
  name: null,
  platform: null,
  appVersion: null,
  lastSeenAt: d.registeredAt,
  lastIp: null,
});
