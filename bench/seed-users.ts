// Writes many users straight through the server's own store adapter (the sign-up write path: a
// user, their device, in one transaction), all sharing one argon2id hash made with the server's
// parameters. Hashing 100,000 distinct passwords would take the better part of an hour on two
// cores and measure nothing the login scenario does not; the rows, their indexes and their
// number are what the scale scenario is about.
import { randomUUID } from 'node:crypto';
import { createArgon2Hasher } from '../src/adapters/crypto/argon2-hasher.js';
import type { Store } from '../src/application/ports/store.js';
import type { UserRecord } from '../src/application/records.js';
import { readConfig } from '../src/config.js';
import { boot } from '../src/boot.js';
import type { ServerProcess } from './server-process.js';
import { SYSTEM } from '../src/application/events/actor.js';
import { newDevice } from '../src/application/new-device.js';

const DAY_MS = 86_400_000;

/** Some members, some lapsed, some never granted: the mix a real user base has. */
const mixedMembership = (i: number, now: number): UserRecord['membership'] =>
  i % 3 === 0 ? { activeUntil: null, isLifetime: false } : { activeUntil: now + (i % 3 === 1 ? 30 : -30) * DAY_MS, isLifetime: false };

/** Users `seed<i>` with a device `seed-hw-<i>` each; their memberships by `membershipOf` (a mix by default). */
export async function seedUsers(
  server: ServerProcess,
  serverEnv: Record<string, string>,
  applicationId: string,
  count: number,
  membershipOf: (i: number, now: number) => UserRecord['membership'] = mixedMembership,
): Promise<void> {
  const booted = await boot(readConfig({ ...serverEnv, GATEHOUSE_DATA_DIR: server.dataDir }));
  const store: Store = booted.deps.store;
  try {
    const work = createArgon2Hasher({ maxConcurrent: 1, maxQueuedPerLane: 1 }).admit('seed');
    if (work === null) throw new Error('a fresh hasher has room');
    const passwordHash = await work.hash(`seed-${randomUUID()}`);
    work.done();
    const now = Date.now();
    const one = async (i: number) => {
      const user: UserRecord = {
        id: randomUUID(),
        applicationId,
        username: `seed${i}`,
        usernameKey: `seed${i}`,
        credentialType: 'username_password',
        passwordHash,
        licenseId: null,
        allowedDevices: 1,
        allowedSessions: 1,
        membership: membershipOf(i, now),
        timeout: null,
        lastIp: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
        createdAt: now - (i % 1000) * DAY_MS,
        lastDeviceResetAt: null,
        planId: null,
        entitlements: [],
        trialStartedAt: null,
        holdsAddOns: false,
      };
      await store.signUp({ user, device: newDevice({ id: randomUUID(), userId: user.id, hardwareId: `seed-hw-${i}`, registeredAt: user.createdAt }), now }, SYSTEM);
    };
    // A few writes in flight: PostgreSQL round trips overlap; SQLite runs them one after another anyway.
    const lanes = 8;
    let next = 0;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < count) await one(next++);
      }),
    );
  } finally {
    await booted.close();
  }
}
