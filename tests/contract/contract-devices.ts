// A user's own devices: the sighting a login writes (openSession) and noteDeviceSeen's minute rule,
// the list, and dropping one in one transaction under the reset cooldown (docs/machines.md, "Devices").
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Store } from '../../src/application/ports/store.js';
import { type Actor, type ActorType, SYSTEM } from '../../src/application/events/actor.js';
import type { ContractContext } from './store-contract.js';
import { domainError, HOUR_MS, makeSession, seedApp, seedUser, T0, tally } from './fixtures.js';

const MIN = 60_000;

async function userOf(store: Store) {
  const { app } = await seedApp(store);
  const user = await seedUser(store, app.id);
  return { app, user };
}

/** A login of `userId` on `hardwareId` at `now`, admitting the device, with what the machine said. */
const loginOn = (store: Store, applicationId: string, userId: string, hardwareId: string, now: number, deviceInfo = {}, ip = '10.0.0.1') => {
  const session = makeSession(applicationId, userId, { hardwareId, createdAt: now, expiresAt: now + HOUR_MS });
  return store.openSession({ session, device: { hardwareId, allowed: 5, newDeviceId: randomUUID() }, cap: 5, now, ip, deviceInfo }, SYSTEM).then(() => session);
};

export function deviceContract({ store, connect, test, section }: ContractContext): void {
  section('devices', () => {
    test('openSession registers a new device with what it said and its address, then writes sightings by the minute rule', async () => {
      const { app, user } = await userOf(store());
      await loginOn(store(), app.id, user.id, 'HW-1', T0, { name: 'Laptop', platform: 'linux' });
      const [first] = await store().listDevices(app.id, user.id);
      expect(first).toMatchObject({ hardwareId: 'HW-1', name: 'Laptop', platform: 'linux', appVersion: null, registeredAt: T0, lastSeenAt: T0, lastIp: '10.0.0.1' });
      // Within the minute: nothing new, nothing written (the address alone is not worth a write).
      await loginOn(store(), app.id, user.id, 'HW-1', T0 + MIN - 1, {}, '10.0.0.2');
      expect((await store().listDevices(app.id, user.id))[0]).toEqual(first);
      // A new field is written at once; last_seen_at waits for its minute.
      await loginOn(store(), app.id, user.id, 'HW-1', T0 + 2, { appVersion: '2.0' });
      expect((await store().listDevices(app.id, user.id))[0]).toMatchObject({ appVersion: '2.0', name: 'Laptop', lastSeenAt: T0 });
      await loginOn(store(), app.id, user.id, 'HW-1', T0 + MIN, {}, '10.0.0.3');
      expect((await store().listDevices(app.id, user.id))[0]).toMatchObject({ lastSeenAt: T0 + MIN, lastIp: '10.0.0.3' });
    });

    test('noteDeviceSeen: the minute rule, the said fields, and nothing for another application or an unknown machine', async () => {
      const { app, user } = await userOf(store());
      await loginOn(store(), app.id, user.id, 'HW-1', T0);
      const seen = (over: Partial<Parameters<Store['noteDeviceSeen']>[0]>) =>
        store().noteDeviceSeen({ applicationId: app.id, userId: user.id, hardwareId: 'HW-1', info: {}, ip: '10.0.0.9', now: T0, ...over });
      await seen({ now: T0 + 30_000 });
      expect((await store().listDevices(app.id, user.id))[0]).toMatchObject({ lastSeenAt: T0, lastIp: '10.0.0.1' });
      await seen({ now: T0 + MIN });
      expect((await store().listDevices(app.id, user.id))[0]).toMatchObject({ lastSeenAt: T0 + MIN, lastIp: '10.0.0.9' });
      await seen({ now: T0 + MIN + 1, info: { name: 'Desk' } });
      expect((await store().listDevices(app.id, user.id))[0]).toMatchObject({ lastSeenAt: T0 + MIN, name: 'Desk' });
      const { app: other } = await seedApp(store());
      await seen({ applicationId: other.id, now: T0 + 5 * MIN, info: { name: 'Mallory' } });
      await seen({ hardwareId: 'HW-unknown', now: T0 + 5 * MIN });
      expect(await store().listDevices(app.id, user.id)).toMatchObject([{ lastSeenAt: T0 + MIN, name: 'Desk' }]);
    });

    test('two sightings racing on two connections write the minute once', async () => {
      const peer = await connect();
      const { app, user } = await userOf(store());
      await loginOn(store(), app.id, user.id, 'HW-1', T0);
      const note = (s: Store, i: number) => s.noteDeviceSeen({ applicationId: app.id, userId: user.id, hardwareId: 'HW-1', info: {}, ip: null, now: T0 + MIN + i });
      await Promise.all(Array.from({ length: 10 }, (_, i) => note(i % 2 ? peer : store(), i)));
      const [device] = await store().listDevices(app.id, user.id);
      expect(device!.lastSeenAt).toBeGreaterThanOrEqual(T0 + MIN);
      expect(device!.lastSeenAt).toBeLessThan(T0 + MIN + 10);
    });

    test('listDevices: the user’s, first registered first; none through another application', async () => {
      const { app, user } = await userOf(store());
      const bob = await seedUser(store(), app.id);
      await loginOn(store(), app.id, user.id, 'HW-2', T0 + 1);
      await loginOn(store(), app.id, user.id, 'HW-1', T0 + 2);
      await loginOn(store(), app.id, bob.id, 'HW-B', T0);
      expect((await store().listDevices(app.id, user.id)).map((d) => d.hardwareId)).toEqual(['HW-2', 'HW-1']);
      const { app: other } = await seedApp(store());
      expect(await store().listDevices(other.id, user.id)).toEqual([]);
    });

    test('dropDevice deletes the device, revokes its sessions only, records the drop; the cooldown then refuses', async () => {
      const { app, user } = await userOf(store());
      const s1 = await loginOn(store(), app.id, user.id, 'HW-1', T0);
      const s2 = await loginOn(store(), app.id, user.id, 'HW-2', T0 + 1);
      const [d1, d2] = await store().listDevices(app.id, user.id);
      const drop = (deviceId: string, now: number, actor: Actor = SYSTEM) => store().dropDevice({ applicationId: app.id, userId: user.id, deviceId, cooldownHours: 24, now }, actor);
      expect(await drop(d2!.id, T0 + 10)).toEqual({ nextResetAt: T0 + 10 + 24 * HOUR_MS });
      expect((await store().listDevices(app.id, user.id)).map((d) => d.id)).toEqual([d1!.id]);
      expect((await store().findSession(s2.id))?.revokedAt).toBe(T0 + 10);
      expect((await store().findSession(s1.id))?.revokedAt).toBeNull();
      expect((await store().findUserById(app.id, user.id))?.lastDeviceResetAt).toBe(T0 + 10);
      const events = await store().listEvents(app.id, { since: T0 + 10 }, { limit: 10 });
      expect(events.map((e) => e.action).sort()).toEqual(['device.removed', 'session.revoked']);
      expect(events.find((e) => e.action === 'device.removed')?.data).toMatchObject({ reason: 'user' });
      const refused = await domainError(drop(d1!.id, T0 + HOUR_MS), 'RESET_COOLDOWN');
      expect(refused.details.nextResetAt).toBe(T0 + 10 + 24 * HOUR_MS);
      expect(await store().listDevices(app.id, user.id)).toHaveLength(1);
      await drop(d1!.id, T0 + 10 + 24 * HOUR_MS);
      expect(await store().listDevices(app.id, user.id)).toEqual([]);
    });

    test('dropDevice: another user’s device, another application’s user or an unknown id is DEVICE_NOT_FOUND and changes nothing', async () => {
      const { app, user } = await userOf(store());
      const bob = await seedUser(store(), app.id);
      await loginOn(store(), app.id, bob.id, 'HW-B', T0);
      const [bobs] = await store().listDevices(app.id, bob.id);
      const { app: other } = await seedApp(store());
      const drop = (applicationId: string, userId: string, deviceId: string) => store().dropDevice({ applicationId, userId, deviceId, cooldownHours: 1, now: T0 }, SYSTEM);
      await domainError(drop(app.id, user.id, bobs!.id), 'DEVICE_NOT_FOUND');
      await domainError(drop(other.id, bob.id, bobs!.id), 'DEVICE_NOT_FOUND');
      await domainError(drop(app.id, user.id, randomUUID()), 'DEVICE_NOT_FOUND');
      expect(await store().listDevices(app.id, bob.id)).toHaveLength(1);
      expect((await store().findUserById(app.id, user.id))?.lastDeviceResetAt).toBeNull();
    });

    test('a drop failing after its writes rolls every one back: device, sessions, cooldown', async () => {
      const { app, user } = await userOf(store());
      const session = await loginOn(store(), app.id, user.id, 'HW-1', T0);
      const [device] = await store().listDevices(app.id, user.id);
      // An actor the event row cannot hold: the event's insert fails after the other writes.
      const broken: Actor = { type: null as unknown as ActorType, id: null, ip: null };
      await expect(store().dropDevice({ applicationId: app.id, userId: user.id, deviceId: device!.id, cooldownHours: 1, now: T0 + 1 }, broken)).rejects.toThrow();
      expect(await store().listDevices(app.id, user.id)).toEqual([device]);
      expect((await store().findSession(session.id))?.revokedAt).toBeNull();
      expect((await store().findUserById(app.id, user.id))?.lastDeviceResetAt).toBeNull();
    });

    test('parallel drops of two devices on two connections: one passes the cooldown', async () => {
      const peer = await connect();
      const { app, user } = await userOf(store());
      await loginOn(store(), app.id, user.id, 'HW-1', T0);
      await loginOn(store(), app.id, user.id, 'HW-2', T0);
      const ids = (await store().listDevices(app.id, user.id)).map((d) => d.id);
      const drops = ids.flatMap((deviceId, i) => [store(), peer].map((s) => s.dropDevice({ applicationId: app.id, userId: user.id, deviceId, cooldownHours: 1, now: T0 + i }, SYSTEM)));
      const result = await tally(drops);
      expect(result.fulfilled).toBe(1);
      expect(await store().listDevices(app.id, user.id)).toHaveLength(1);
    });
  });
}
