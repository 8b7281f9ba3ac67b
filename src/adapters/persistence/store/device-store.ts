// A user's own devices: sightings, the list and dropping one (docs/machines.md, "Devices").
import { and, eq, isNull } from 'drizzle-orm';
import type { DeviceStore } from '../../../application/ports/device-store.js';
import { deviceRemoved } from '../../../application/events/event-facts.js';
import { type DeviceInfo, deviceSeenUpdate } from '../../../domain/device-info.js';
import { planDeviceReset } from '../../../domain/device-reset.js';
import { DomainError } from '../../../domain/errors.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, type Dialect, listOrder } from '../dialect.js';
import { toDevice } from '../row-mappers.js';
import type { Tables } from '../tables.js';
import type { RecordEvents } from './event-log.js';
import { endSessions, findUser } from './writes.js';
import { revokeRefreshTokens } from './refresh-revocations.js';

type DeviceRow = Tables['devices']['$inferSelect'];

const deviceNotFound = () => new DomainError('DEVICE_NOT_FOUND', 'no such device');

/** Writes a sighting of a stored device in `db` (a transaction's or the autocommitting writer's):
 * only when deviceSeenUpdate says so, and only if no other sighting wrote it since it was read. */
export async function writeSighting(d: Dialect, db: Db, row: DeviceRow, info: DeviceInfo, ip: string | null, now: Instant): Promise<void> {
  const update = deviceSeenUpdate(toDevice(row), info, ip, now);
  if (update === null) return;
  const { devices } = d.t;
  const unchanged = row.lastSeenAt === null ? isNull(devices.lastSeenAt) : eq(devices.lastSeenAt, row.lastSeenAt);
  await db
    .update(devices)
    .set(update)
    .where(and(eq(devices.id, row.id), unchanged));
}

/** The device row of a user's machine, in `db`. */
export async function deviceOfMachine(d: Dialect, db: Db, userId: string, hardwareId: string): Promise<DeviceRow | null> {
  const { devices } = d.t;
  const [row] = await db
    .select()
    .from(devices)
    .where(and(eq(devices.userId, userId), eq(devices.hardwareId, hardwareId)));
  return row ?? null;
}

export function deviceStore(d: Dialect, recordEvents: RecordEvents): DeviceStore {
  const { devices, users } = d.t;
  const { oldestFirst } = listOrder(d);
  const ofUser = (applicationId: string, userId: string) => and(eq(devices.userId, userId), eq(users.applicationId, applicationId));
  return {
    async noteDeviceSeen({ applicationId, userId, hardwareId, info, ip, now }) {
      const [found] = await d.db
        .select({ device: devices })
        .from(devices)
        .innerJoin(users, eq(users.id, devices.userId))
        .where(and(ofUser(applicationId, userId), eq(devices.hardwareId, hardwareId)));
      if (found === undefined) return;
      // A lost race with another sighting writes nothing: that one moved the device already.
      await d.write((w) => writeSighting(d, w, found.device, info, ip, now));
    },
    async listDevices(applicationId, userId) {
      const rows = await d.db
        .select({ device: devices })
        .from(devices)
        .innerJoin(users, eq(users.id, devices.userId))
        .where(ofUser(applicationId, userId))
        .orderBy(oldestFirst(devices.registeredAt, devices.id));
      return rows.map((r) => toDevice(r.device));
    },
    async dropDevice({ applicationId, userId, deviceId, cooldownHours, now }, actor) {
      return d.transaction(async (tx) => {
        // Locked like a login and a reset of the user: parallel drops read the last reset one after
        // another, and no session opens on the device meanwhile.
        const user = await findUser(d, tx, applicationId, userId, true);
        if (user === null) throw deviceNotFound();
        const [device] = await tx
          .select()
          .from(devices)
          .where(and(eq(devices.id, deviceId), eq(devices.userId, userId)));
        if (device === undefined) throw deviceNotFound();
        const plan = planDeviceReset(user.lastDeviceResetAt, cooldownHours, now);
        await tx.delete(devices).where(eq(devices.id, deviceId));
        const ended = await endSessions(d, tx, user, 'device_removed', now, device.hardwareId);
        await revokeRefreshTokens(d, tx, userId, now, device.hardwareId);
        await tx.update(users).set({ lastDeviceResetAt: now }).where(eq(users.id, userId));
        await recordEvents(tx, actor, [deviceRemoved(applicationId, user, toDevice(device), 'user'), ...ended], now);
        return plan;
      });
    },
  };
}
