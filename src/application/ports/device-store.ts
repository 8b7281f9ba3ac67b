// A user's own devices: sightings, the list and dropping one (docs/machines.md, "Devices").
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { DeviceInfo } from '../../domain/device-info.js';
import type { Instant } from '../../domain/time.js';
import type { Actor } from '../events/actor.js';
import type { DeviceRecord } from '../records.js';

/** A machine seen at `now`: by login, heartbeat or refresh, with what it said about itself. */
export interface DeviceSeenInput {
  applicationId: string;
  userId: string;
  hardwareId: string;
  info: DeviceInfo;
  ip: string | null;
  now: Instant;
}

export interface DropDeviceInput {
  applicationId: string;
  userId: string;
  deviceId: string;
  /** The application's device_reset_cooldown_hours, the same cooldown as a reset's. */
  cooldownHours: number;
  now: Instant;
}

export interface DeviceStore {
  /** Writes what deviceSeenUpdate says (the said fields that changed; last_seen_at at most once a
   * minute) in at most one read and one conditional write; a machine that is no device writes nothing. */
  noteDeviceSeen(input: DeviceSeenInput): Promise<void>;
  /** The user's devices (none for another application's user), first registered first. */
  listDevices(applicationId: string, userId: string): Promise<DeviceRecord[]>;
  /** ATOMIC, under the user's row lock: DEVICE_NOT_FOUND for a device that is not the user's, then
   * RESET_COOLDOWN; deletes it, revokes its sessions and refresh tokens, records the drop as a reset. */
  dropDevice(input: DropDeviceInput, actor: Actor): Promise<{ nextResetAt: Instant }>;
}
