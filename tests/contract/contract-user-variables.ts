// Variables of one end user, and the two atomic account changes of the end-user features: a new
// password (sessions revoked) and a device reset under its cooldown.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ContractContext } from './store-contract.js';
import { domainError, HOUR_MS, makeSession, seedApp, seedUser, T0, tally } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';

const variable = (applicationId: string, userId: string, name: string, value = 'v', updatedAt = T0) => ({ applicationId, userId, name, value, updatedAt });

export function userVariableContract({ store, connect, test, section }: ContractContext): void {
  section('user variables', () => {
    test('put creates then replaces; find, list by name and delete are scoped to the user and application', async () => {
      const { app } = await seedApp(store());
      const alice = await seedUser(store(), app.id);
      const bob = await seedUser(store(), app.id);
      expect(await store().putUserVariable(variable(app.id, alice.id, 'b', 'one'), 100, SYSTEM)).toEqual(variable(app.id, alice.id, 'b', 'one'));
      await store().putUserVariable(variable(app.id, alice.id, 'b', 'two', T0 + 5), 100, SYSTEM);
      await store().putUserVariable(variable(app.id, alice.id, 'A'), 100, SYSTEM);
      await store().putUserVariable(variable(app.id, bob.id, 'b', 'bobs'), 100, SYSTEM);
      expect(await store().findUserVariable(app.id, alice.id, 'b')).toEqual(variable(app.id, alice.id, 'b', 'two', T0 + 5));
      // By bytes: upper case first.
      expect((await store().listUserVariables(app.id, alice.id)).map((v) => v.name)).toEqual(['A', 'b']);
      expect(await store().listUserVariables(app.id, bob.id)).toEqual([variable(app.id, bob.id, 'b', 'bobs')]);
      const { app: other } = await seedApp(store());
      expect(await store().findUserVariable(other.id, alice.id, 'b')).toBeNull();
      expect(await store().listUserVariables(other.id, alice.id)).toEqual([]);
      expect(await store().deleteUserVariable(other.id, alice.id, 'b', T0, SYSTEM)).toBe(false);
      expect(await store().deleteUserVariable(app.id, alice.id, 'b', T0, SYSTEM)).toBe(true);
      expect(await store().deleteUserVariable(app.id, alice.id, 'b', T0, SYSTEM)).toBe(false);
      expect(await store().findUserVariable(app.id, bob.id, 'b')).not.toBeNull();
    });

    test('a 64 KiB value is kept whole', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const big = 'é€'.repeat(13_107);
      await store().putUserVariable(variable(app.id, user.id, 'big', big), 100, SYSTEM);
      expect((await store().findUserVariable(app.id, user.id, 'big'))?.value).toBe(big);
    });

    test('a new variable past the limit is refused; replacing one is not', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      for (const name of ['a', 'b']) await store().putUserVariable(variable(app.id, user.id, name), 2, SYSTEM);
      await domainError(store().putUserVariable(variable(app.id, user.id, 'c'), 2, SYSTEM), 'VALIDATION_FAILED');
      await store().putUserVariable(variable(app.id, user.id, 'a', 'replaced'), 2, SYSTEM);
      expect((await store().listUserVariables(app.id, user.id)).map((v) => v.value)).toEqual(['replaced', 'v']);
    });

    test('USER_NOT_FOUND for a user of another application, and nothing is written', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      await domainError(store().putUserVariable(variable(other.id, user.id, 'x'), 100, SYSTEM), 'USER_NOT_FOUND');
      expect(await store().listUserVariables(other.id, user.id)).toEqual([]);
    });

    test('parallel puts of new names over two connections never pass the limit', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const peer = await connect();
      const result = await tally(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store() : peer).putUserVariable(variable(app.id, user.id, `n${i}`), 5, SYSTEM)));
      expect(result).toEqual({ fulfilled: 5, codes: { VALIDATION_FAILED: 15 } });
      expect(await store().listUserVariables(app.id, user.id)).toHaveLength(5);
    });

    test('variables go with their user', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      await store().putUserVariable(variable(app.id, user.id, 'k'), 100, SYSTEM);
      expect(await store().deleteApplication(app.id)).toBe(true);
      expect(await store().listUserVariables(app.id, user.id)).toEqual([]);
    });
  });

  section('password replacement and device reset', () => {
    test('replacePassword sets the hash and revokes every live session of the user only', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const other = await seedUser(store(), app.id);
      const mine = makeSession(app.id, user.id);
      const theirs = makeSession(app.id, other.id);
      for (const s of [mine, theirs]) await store().openSession({ session: s, device: null, cap: 5, now: T0 }, SYSTEM);
      expect(await store().replacePassword(app.id, user.id, '$argon2id$replaced', T0 + 1, SYSTEM)).toBe(true);
      expect((await store().findUserById(app.id, user.id))?.passwordHash).toBe('$argon2id$replaced');
      expect((await store().findSession(mine.id))?.revokedAt).toBe(T0 + 1);
      expect((await store().findSession(theirs.id))?.revokedAt).toBeNull();
      const { app: elsewhere } = await seedApp(store());
      expect(await store().replacePassword(elsewhere.id, user.id, '$argon2id$hijack', T0 + 2, SYSTEM)).toBe(false);
      expect((await store().findUserById(app.id, user.id))?.passwordHash).toBe('$argon2id$replaced');
    });

    test('resetDevices unregisters the devices, revokes the sessions and records the reset; inside the cooldown it refuses and changes nothing', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id, { allowedDevices: 2 });
      const session = makeSession(app.id, user.id, { hardwareId: 'hw-1' });
      await store().openSession({ session, device: { hardwareId: 'hw-1', allowed: 2, newDeviceId: randomUUID() }, cap: 5, now: T0 }, SYSTEM);
      expect(await store().resetDevices({ applicationId: app.id, userId: user.id, cooldownHours: 24, now: T0 + 10 }, SYSTEM)).toEqual({ nextResetAt: T0 + 10 + 24 * HOUR_MS });
      expect((await store().getUserDetails(app.id, user.id))?.devices).toEqual([]);
      expect((await store().findSession(session.id))?.revokedAt).toBe(T0 + 10);
      expect((await store().findUserById(app.id, user.id))?.lastDeviceResetAt).toBe(T0 + 10);

      const later = makeSession(app.id, user.id, { hardwareId: 'hw-2', createdAt: T0 + 20 });
      await store().openSession({ session: later, device: { hardwareId: 'hw-2', allowed: 2, newDeviceId: randomUUID() }, cap: 5, now: T0 + 20 }, SYSTEM);
      const refused = await domainError(store().resetDevices({ applicationId: app.id, userId: user.id, cooldownHours: 24, now: T0 + HOUR_MS }, SYSTEM), 'RESET_COOLDOWN');
      expect(refused.details.nextResetAt).toBe(T0 + 10 + 24 * HOUR_MS);
      expect((await store().getUserDetails(app.id, user.id))?.devices.map((d) => d.hardwareId)).toEqual(['hw-2']);
      expect((await store().findSession(later.id))?.revokedAt).toBeNull();
      expect((await store().findUserById(app.id, user.id))?.lastDeviceResetAt).toBe(T0 + 10);
      await domainError(store().resetDevices({ applicationId: randomUUID(), userId: user.id, cooldownHours: 24, now: T0 + 48 * HOUR_MS }, SYSTEM), 'USER_NOT_FOUND');
    });

    test('20 parallel resets over two connections succeed exactly once', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const peer = await connect();
      const result = await tally(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store() : peer).resetDevices({ applicationId: app.id, userId: user.id, cooldownHours: 1, now: T0 + i }, SYSTEM)));
      expect(result).toEqual({ fulfilled: 1, codes: { RESET_COOLDOWN: 19 } });
    });
  });
}
