// End users: sign-up, lookups, search, limits, timeouts, devices, bulk adjustments, IPs.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ContractContext } from './store-contract.js';
import { domainError, HOUR_MS, makeSession, makeUser, seedApp, seedUser, T0, noPlansOf } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';
import { newDevice } from '../../src/application/new-device.js';

const MIN = 60_000;

export function userContract({ store, test, section }: ContractContext): void {
  section('users', () => {
    test('signUp stores the user and the device', async () => {
      const { app } = await seedApp(store());
      const user = makeUser(app.id, { username: 'Alice', usernameKey: 'alice' });
      const device = newDevice({ id: randomUUID(), userId: user.id, hardwareId: 'hw-alice', registeredAt: T0 });
      expect(await store().signUp({ user, device, now: T0 }, SYSTEM)).toEqual(user);
      expect(await store().findUserById(app.id, user.id)).toEqual(user);
      expect(await store().findUserByUsernameKey(app.id, 'alice')).toEqual(user);
      expect(await store().getUserDetails(app.id, user.id)).toEqual({ user, devices: [device], adjustments: [], ...noPlansOf(app) });
      const { app: other } = await seedApp(store());
      expect(await store().findUserById(other.id, user.id)).toBeNull();
      expect(await store().getUserDetails(other.id, user.id)).toBeNull();
    });

    test('usernamesOf maps the ids that are users of the application to their usernames, and no others', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const alice = await seedUser(store(), app.id, { username: 'Alice', usernameKey: 'alice' });
      const bob = await seedUser(store(), app.id, { username: 'bob', usernameKey: 'bob' });
      const foreign = await seedUser(store(), other.id, { username: 'mallory', usernameKey: 'mallory' });
      const names = await store().usernamesOf(app.id, [alice.id, bob.id, foreign.id, randomUUID(), 'not-an-id']);
      expect(names).toEqual(
        new Map([
          [alice.id, 'Alice'],
          [bob.id, 'bob'],
        ]),
      );
      expect(await store().usernamesOf(app.id, [])).toEqual(new Map());
    });

    test('signUp refuses a taken username key with USERNAME_TAKEN and stores neither user nor device', async () => {
      const { app } = await seedApp(store());
      await seedUser(store(), app.id, { username: 'Bob', usernameKey: 'bob' });
      const clash = makeUser(app.id, { username: 'BOB', usernameKey: 'bob' });
      const device = newDevice({ id: randomUUID(), userId: clash.id, hardwareId: 'hw', registeredAt: T0 });
      await domainError(store().signUp({ user: clash, device, now: T0 }, SYSTEM), 'USERNAME_TAKEN');
      expect(await store().findUserById(app.id, clash.id)).toBeNull();
      // The same name is free in another application.
      const { app: other } = await seedApp(store());
      await seedUser(store(), other.id, { username: 'Bob', usernameKey: 'bob' });
    });

    test('searchUsers matches a case-insensitive substring, oldest first, with paging', async () => {
      const { app } = await seedApp(store());
      const names = ['Anna', 'joANNe', 'Bob', 'hANNah', 'École', '50%_off'];
      for (const [i, name] of names.entries()) {
        await seedUser(store(), app.id, { username: name, usernameKey: name.toLowerCase(), createdAt: T0 + i * 1000 });
      }
      const { app: other } = await seedApp(store());
      await seedUser(store(), other.id, { username: 'Annabel', usernameKey: 'annabel' });
      const search = async (q: string, limit = 50, offset = 0) => (await store().searchUsers(app.id, q, { limit, offset })).map((u) => u.username);
      expect(await search('ann')).toEqual(['Anna', 'joANNe', 'hANNah']);
      expect(await search('ANN', 2)).toEqual(['Anna', 'joANNe']);
      expect(await search('ann', 2, 2)).toEqual(['hANNah']);
      expect(await search('')).toEqual(names);
      expect(await search('', 2, 1)).toEqual(['joANNe', 'Bob']);
      expect(await search('ÉCO')).toEqual(['École']);
      // Wildcards of LIKE are matched literally.
      expect(await search('%')).toEqual(['50%_off']);
      expect(await search('_')).toEqual(['50%_off']);
      expect(await search('zzz')).toEqual([]);
    });

    test('updateUserLimits changes the given limits only', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      expect(await store().updateUserLimits(app.id, user.id, { allowedDevices: 4 })).toEqual({ ...user, allowedDevices: 4 });
      expect(await store().updateUserLimits(app.id, user.id, { allowedSessions: 7 })).toEqual({ ...user, allowedDevices: 4, allowedSessions: 7 });
      expect(await store().updateUserLimits(app.id, randomUUID(), { allowedDevices: 1 })).toBeNull();
      const { app: other } = await seedApp(store());
      expect(await store().updateUserLimits(other.id, user.id, { allowedDevices: 9 })).toBeNull();
    });

    test('setUserTimeout sets a timeout revoking live sessions, and lifts it', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const session = makeSession(app.id, user.id);
      await store().openSession({ session, device: null, cap: 5, now: T0 }, SYSTEM);
      const timeout = { until: T0 + HOUR_MS, reason: 'spam' };
      expect(await store().setUserTimeout(app.id, user.id, timeout, T0 + 1, SYSTEM)).toBe(true);
      expect((await store().findUserById(app.id, user.id))?.timeout).toEqual(timeout);
      expect((await store().findSession(session.id))?.revokedAt).toBe(T0 + 1);

      // No login while it runs; once lifted, logins work again.
      await domainError(store().openSession({ session: makeSession(app.id, user.id), device: null, cap: 5, now: T0 + 2 }, SYSTEM), 'TIMED_OUT');
      expect(await store().setUserTimeout(app.id, user.id, null, T0 + 3, SYSTEM)).toBe(true);
      expect((await store().findUserById(app.id, user.id))?.timeout).toBeNull();
      const later = makeSession(app.id, user.id);
      await store().openSession({ session: later, device: null, cap: 5, now: T0 + 4 }, SYSTEM);
      expect((await store().findSession(later.id))?.revokedAt).toBeNull();
      expect(await store().setUserTimeout(app.id, randomUUID(), timeout, T0, SYSTEM)).toBe(false);
    });

    test('deleteDevice unregisters the device and revokes only its sessions', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id, { allowedDevices: 2, allowedSessions: 2 });
      const open = async (hardwareId: string) => {
        const session = makeSession(app.id, user.id, { hardwareId });
        await store().openSession({ session, device: { hardwareId, allowed: 2, newDeviceId: randomUUID() }, cap: 2, now: T0 }, SYSTEM);
        return session;
      };
      const onA = await open('hw-a');
      const onB = await open('hw-b');
      const deviceA = (await store().getUserDetails(app.id, user.id))?.devices.find((d) => d.hardwareId === 'hw-a');
      if (!deviceA) throw new Error('device hw-a was not registered');
      const { app: other } = await seedApp(store());
      expect(await store().deleteDevice(other.id, user.id, deviceA.id, T0 + 5, SYSTEM)).toBe(false);
      expect(await store().deleteDevice(app.id, randomUUID(), deviceA.id, T0 + 5, SYSTEM)).toBe(false);
      expect(await store().deleteDevice(app.id, user.id, deviceA.id, T0 + 5, SYSTEM)).toBe(true);
      expect(await store().deleteDevice(app.id, user.id, deviceA.id, T0 + 5, SYSTEM)).toBe(false);
      expect((await store().getUserDetails(app.id, user.id))?.devices.map((d) => d.hardwareId)).toEqual(['hw-b']);
      expect((await store().findSession(onA.id))?.revokedAt).toBe(T0 + 5);
      expect((await store().findSession(onB.id))?.revokedAt).toBeNull();
    });

    test('revokeUserSessions revokes the live sessions and counts them', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const live = [makeSession(app.id, user.id), makeSession(app.id, user.id)];
      for (const session of live) await store().openSession({ session, device: null, cap: 5, now: T0 }, SYSTEM);
      const expired = makeSession(app.id, user.id, { expiresAt: T0 + 10 });
      await store().openSession({ session: expired, device: null, cap: 5, now: T0 }, SYSTEM);
      expect(await store().revokeUserSessions(app.id, user.id, T0 + 100, SYSTEM)).toBe(2);
      expect(await store().revokeUserSessions(app.id, user.id, T0 + 200, SYSTEM)).toBe(0);
      for (const s of live) expect((await store().findSession(s.id))?.revokedAt).toBe(T0 + 100);
    });

    test('recordIp sets the last IP; updatePasswordHash replaces the hash', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      await store().recordIp(user.id, '198.51.100.1', T0);
      await store().recordIp(user.id, '198.51.100.2', T0 + 1);
      await store().recordIp(user.id, '198.51.100.1', T0 + 2);
      await store().updatePasswordHash(user.id, '$argon2id$new');
      expect(await store().findUserById(app.id, user.id)).toEqual({ ...user, lastIp: '198.51.100.1', passwordHash: '$argon2id$new' });
    });

    test('hasSignedInFrom tells the addresses recordIp recorded for the user, and only theirs', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const other = await seedUser(store(), app.id);
      await store().recordIp(user.id, '198.51.100.1', T0);
      expect(await store().hasSignedInFrom(user.id, '198.51.100.1')).toBe(true);
      expect(await store().hasSignedInFrom(user.id, '198.51.100.2')).toBe(false);
      expect(await store().hasSignedInFrom(other.id, '198.51.100.1')).toBe(false);
    });
  });

  section('bulkAdjust', () => {
    test('adjusts each listed user of the application once and records bulk adjustments', async () => {
      const { app } = await seedApp(store());
      const a = await seedUser(store(), app.id, { membership: { activeUntil: T0 + HOUR_MS, isLifetime: false } });
      const b = await seedUser(store(), app.id, { membership: { activeUntil: null, isLifetime: true } });
      const { app: other } = await seedApp(store());
      const outsider = await seedUser(store(), other.id);
      const ids: string[] = [];
      const newId = () => {
        const id = randomUUID();
        ids.push(id);
        return id;
      };
      const count = await store().bulkAdjust(app.id, [a.id, b.id, a.id, outsider.id, randomUUID()], { minutes: 30, reason: 'outage' }, T0, newId, SYSTEM);
      expect(count).toBe(2);
      expect(ids).toHaveLength(2);
      expect((await store().findUserById(app.id, a.id))?.membership).toEqual({ activeUntil: T0 + HOUR_MS + 30 * MIN, isLifetime: false });
      expect((await store().findUserById(app.id, b.id))?.membership).toEqual({ activeUntil: T0 + 30 * MIN, isLifetime: true });
      expect(await store().findUserById(other.id, outsider.id)).toEqual(outsider);
      const adjustments = (await store().getUserDetails(app.id, a.id))?.adjustments ?? [];
      expect(adjustments).toHaveLength(1);
      expect(adjustments[0]).toMatchObject({ type: 'bulk', minutes: 30, reason: 'outage', applicationId: app.id, userId: a.id, occurredAt: T0 });

      await store().bulkAdjust(app.id, [b.id], { revokeLifetime: true }, T0 + 1, () => randomUUID(), SYSTEM);
      const history = (await store().getUserDetails(app.id, b.id))?.adjustments ?? [];
      expect(history.map((h) => h.revokesLifetime)).toEqual([false, true]);
      expect(history[1]?.occurredAt).toBe(T0 + 1);
      expect(await store().bulkAdjust(app.id, [], { minutes: 5 }, T0, () => randomUUID(), SYSTEM)).toBe(0);
    });

    test('an invalid change is VALIDATION_FAILED and writes nothing', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      await domainError(
        store().bulkAdjust(app.id, [user.id], { minutes: 10, grantLifetime: true }, T0, () => randomUUID(), SYSTEM),
        'VALIDATION_FAILED',
      );
      await domainError(
        store().bulkAdjust(app.id, [user.id], {}, T0, () => randomUUID(), SYSTEM),
        'VALIDATION_FAILED',
      );
      expect(await store().getUserDetails(app.id, user.id)).toEqual({ user, devices: [], adjustments: [], ...noPlansOf(app) });
    });
  });
}
