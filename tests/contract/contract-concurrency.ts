// Parallel calls racing for one limited resource: a license, session slots, device slots, an
// account's failure budget, a username. Each must be granted exactly as often as the rule allows.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ContractContext } from './store-contract.js';
import { IN_FLIGHT_LEASE_MS } from '../../src/domain/auth-throttle.js';
import { domainError, makeLicense, makeSession, makeUser, seedApp, seedUser, T0, tally, tallyValues, CAP_DEFAULTS } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';
import { createPlan } from '../../src/domain/plan.js';

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

export function concurrencyContract({ store, readThrottle, test, section }: ContractContext): void {
  section('concurrency', () => {
    test('parallel patches of different settings of one application all hold', async () => {
      const { app } = await seedApp(store());
      const patches = [
        { anonymousAccess: !app.settings.anonymousAccess },
        { deviceAuth: !app.settings.deviceAuth },
        { legacyAuth: !app.settings.legacyAuth },
        { tokenAuth: !app.settings.tokenAuth },
        { banPropagation: !app.settings.banPropagation },
        { sessionTtlSeconds: app.settings.sessionTtlSeconds + 60 },
        { defaultAllowedDevices: app.settings.defaultAllowedDevices + 5 },
        { defaultAllowedSessions: app.settings.defaultAllowedSessions + 5 },
        { propagatedIpBanHours: 72 },
        { passwordMinLength: app.settings.passwordMinLength + 2 },
      ];
      await Promise.all([...patches.map((settings) => store().patchApplication(app.id, { settings }, T0, SYSTEM)), store().patchApplication(app.id, { name: 'Renamed', settings: {} }, T0, SYSTEM)]);
      expect(await store().findApplication(app.id)).toEqual({ ...app, name: 'Renamed', settings: Object.assign({ ...app.settings }, ...patches) });
    });

    test('parallel patches of different fields of one announcement all hold', async () => {
      const { app } = await seedApp(store());
      for (let round = 0; round < 5; round += 1) {
        const original = {
          id: randomUUID(),
          applicationId: app.id,
          title: 'original',
          contentHtml: '<p>original</p>',
          status: 'DRAFT' as const,
          publishFrom: T0,
          publishUntil: null,
          createdAt: T0,
        };
        await store().createAnnouncement(original, SYSTEM);
        // Any order of these keeps the publication window valid.
        const patches = [{ title: 'retitled' }, { contentHtml: '<p>changed</p>' }, { status: 'ARCHIVED' as const }, { publishFrom: T0 + 1000 }, { publishUntil: T0 + 5000 }];
        await Promise.all(patches.map((p) => store().patchAnnouncement(app.id, original.id, p, T0, SYSTEM)));
        expect(await store().findAnnouncement(app.id, original.id)).toEqual(Object.assign({ ...original }, ...patches));
      }
    });

    test('20 parallel redemptions of a 5-seat code: exactly 5 succeed, the rest LICENSE_USED', async () => {
      const { app } = await seedApp(store());
      const plan = createPlan({ name: 'Team', kind: 'base', durationMinutes: 60, seats: 5 }, randomUUID(), app.id, T0);
      await store().insertPlan(plan);
      const license = makeLicense(app.id, { minutes: null, planId: plan.id, seats: 5 });
      await store().insertLicenses([license], SYSTEM);
      const users = await Promise.all(times(20, () => seedUser(store(), app.id)));
      const result = await tally(
        users.map((u) => store().activateLicense({ applicationId: app.id, userId: u.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM)),
      );
      expect(result).toEqual({ fulfilled: 5, codes: { LICENSE_USED: 15 } });
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ redemptions: 5 });
      expect(await store().listRedemptions(app.id, license.id)).toHaveLength(5);
    });

    test('50 parallel activations of one license: exactly one succeeds', async () => {
      const { app } = await seedApp(store());
      const license = makeLicense(app.id);
      await store().insertLicenses([license], SYSTEM);
      const users = await Promise.all(times(50, () => seedUser(store(), app.id)));
      const result = await tally(
        users.map((u) => store().activateLicense({ applicationId: app.id, userId: u.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM)),
      );
      expect(result).toEqual({ fulfilled: 1, codes: { LICENSE_USED: 49 } });
      const winner = (await store().findLicenseById(app.id, license.id))?.usedByUserId;
      const adjusted = await Promise.all(users.map(async (u) => (await store().getUserDetails(app.id, u.id))?.adjustments.length ?? 0));
      expect(adjusted.reduce((a, b) => a + b, 0)).toBe(1);
      expect(adjusted[users.findIndex((u) => u.id === winner)]).toBe(1);
    });

    test('50 parallel sign-ups with one license: exactly one user is created', async () => {
      const { app } = await seedApp(store());
      const license = makeLicense(app.id);
      await store().insertLicenses([license], SYSTEM);
      const users = times(50, () => makeUser(app.id, { credentialType: 'license_code', passwordHash: null }));
      const result = await tally(
        users.map((user) =>
          store().signUpWithLicense({ applicationId: app.id, licenseDigest: license.codeDigest, user, device: null, holderDevice: null, adjustmentId: randomUUID(), now: T0 }, SYSTEM),
        ),
      );
      expect(result).toEqual({ fulfilled: 1, codes: { LICENSE_USED: 49 } });
      const created = await Promise.all(users.map((u) => store().findUserById(app.id, u.id)));
      expect(created.filter((u) => u !== null)).toHaveLength(1);
    });

    test('40 parallel logins on distinct devices fill the session cap exactly', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id, { allowedDevices: 100, allowedSessions: 3 });
      const sessions = times(40, (i) => makeSession(app.id, user.id, { hardwareId: `hw-${i}` }));
      const result = await tally(
        sessions.map((session) => store().openSession({ session, device: { hardwareId: session.hardwareId ?? '', allowed: 100, newDeviceId: randomUUID() }, cap: 3, now: T0 }, SYSTEM)),
      );
      expect(result).toEqual({ fulfilled: 3, codes: { SESSION_LIMIT_REACHED: 37 } });
      const stored = await Promise.all(sessions.map((s) => store().findSession(s.id)));
      expect(stored.filter((s) => s !== null && s.revokedAt === null)).toHaveLength(3);
      // Refused logins registered no device.
      expect((await store().getUserDetails(app.id, user.id))?.devices).toHaveLength(3);
    });

    test('40 parallel logins on distinct devices fill the device cap exactly', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id, { allowedDevices: 2, allowedSessions: 100 });
      const sessions = times(40, (i) => makeSession(app.id, user.id, { hardwareId: `hw-${i}` }));
      const result = await tally(
        sessions.map((session) => store().openSession({ session, device: { hardwareId: session.hardwareId ?? '', allowed: 2, newDeviceId: randomUUID() }, cap: 100, now: T0 }, SYSTEM)),
      );
      expect(result).toEqual({ fulfilled: 2, codes: { DEVICE_LIMIT_REACHED: 38 } });
      expect((await store().getUserDetails(app.id, user.id))?.devices).toHaveLength(2);
      const stored = await Promise.all(sessions.map((s) => store().findSession(s.id)));
      expect(stored.filter((s) => s !== null)).toHaveLength(2);
    });

    test('40 parallel license file admissions on distinct devices fill the device cap exactly', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id, { allowedDevices: 3 });
      const result = await tally(
        times(40, (i) =>
          store().admitLicenseFileDevice(
            {
              applicationId: app.id,
              userId: user.id,
              device: { hardwareId: `hw-${i}`, newDeviceId: randomUUID() },
              capDefaults: CAP_DEFAULTS,
              file: { id: randomUUID(), ttlMinutes: 60, issuedBy: { type: 'end_user', id: user.id } },
              now: T0,
            },
            SYSTEM,
          ),
        ),
      );
      expect(result).toEqual({ fulfilled: 3, codes: { DEVICE_LIMIT_REACHED: 37 } });
      expect((await store().getUserDetails(app.id, user.id))?.devices).toHaveLength(3);
    });

    test('40 parallel logins on one device leave exactly one live session', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const sessions = times(40, () => makeSession(app.id, user.id, { hardwareId: 'hw-same' }));
      const result = await tally(sessions.map((session) => store().openSession({ session, device: { hardwareId: 'hw-same', allowed: 1, newDeviceId: randomUUID() }, cap: 1, now: T0 }, SYSTEM)));
      expect(result).toEqual({ fulfilled: 40, codes: {} });
      const stored = await Promise.all(sessions.map((s) => store().findSession(s.id)));
      expect(stored.filter((s) => s !== null && s.revokedAt === null)).toHaveLength(1);
      expect((await store().getUserDetails(app.id, user.id))?.devices).toHaveLength(1);
    });

    test('50 parallel reservations on one account with threshold 10: exactly 10 are reserved, the rest busy', async () => {
      const { app } = await seedApp(store());
      const limits = { lockoutThreshold: 10, ipFailureLimit: 1000, accountFailureLimit: 1000 };
      const attempt = { applicationId: app.id, accountKey: 'user:victim', ip: '198.51.100.77', now: T0 };
      const result = await tallyValues(times(50, () => store().reserveAuthAttempt(attempt, limits)));
      expect(result).toEqual({ values: { reserved: 10, busy: 40 }, codes: {} });
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
        account: { failures: 0, lockedUntil: null, lockouts: 0, inFlight: 10, inFlightUntil: T0 + IN_FLIGHT_LEASE_MS },
        everywhere: { windowStart: T0, failures: 10 },
        ip: { windowStart: T0, failures: 10 },
      });
      // The 10 guesses fail, in parallel too: the account locks and no settlement is lost.
      await Promise.all(times(10, () => store().settleAuthAttempt(attempt, 'failure', limits)));
      expect((await readThrottle(app.id, attempt.accountKey, attempt.ip)).account).toEqual({
        failures: 0,
        lockedUntil: T0 + 60_000,
        lockouts: 1,
        inFlight: 0,
        inFlightUntil: null,
      });
      await domainError(store().reserveAuthAttempt({ ...attempt, now: T0 + 1 }, limits), 'ACCOUNT_LOCKED');
    });

    test('50 parallel guesses at one account from 50 networks with an hourly limit of 20: exactly 20 are checked', async () => {
      const { app } = await seedApp(store());
      const limits = { lockoutThreshold: 10, ipFailureLimit: 1000, accountFailureLimit: 20 };
      const attempt = (i: number) => ({ applicationId: app.id, accountKey: 'user:spread', ip: `198.51.${i + 1}.1`, now: T0 });
      const result = await tallyValues(Array.from({ length: 50 }, (_, i) => store().reserveAuthAttempt(attempt(i), limits)));
      expect(result).toEqual({ values: { reserved: 20 }, codes: { ACCOUNT_LOCKED: 30 } });
      expect((await readThrottle(app.id, 'user:spread', '198.51.1.1')).everywhere).toEqual({ windowStart: T0, failures: 20 });
    });

    test('30 parallel sign-up reservations from one address with a limit of 10: exactly 10 pass', async () => {
      const { app } = await seedApp(store());
      const result = await tallyValues(
        times(30, () =>
          store()
            .reserveSignUp({ applicationId: app.id, address: '198.51.100.90', now: T0 }, { perAddress: 10, perApplication: 1000 })
            .then(() => undefined),
        ),
      );
      expect(result).toEqual({ values: { undefined: 10 }, codes: { RATE_LIMITED: 20 } });
    });

    test('50 parallel correct logins on one account with threshold 10 all get their turn, none locked', async () => {
      const { app } = await seedApp(store());
      const limits = { lockoutThreshold: 10, ipFailureLimit: 1000, accountFailureLimit: 1000 };
      const attempt = { applicationId: app.id, accountKey: 'user:busy', ip: '198.51.100.79', now: T0 };
      let mostInFlight = 0;
      const login = async () => {
        for (let tries = 0; tries < 10_000; tries++) {
          if ((await store().reserveAuthAttempt(attempt, limits)) === 'reserved') {
            mostInFlight = Math.max(mostInFlight, (await readThrottle(app.id, attempt.accountKey, attempt.ip)).account.inFlight);
            await new Promise((resolve) => setImmediate(resolve));
            await store().settleAuthAttempt(attempt, 'success', limits);
            return 'in';
          }
          await new Promise((resolve) => setImmediate(resolve));
        }
        return 'gave up';
      };
      expect(await tallyValues(times(50, login))).toEqual({ values: { in: 50 }, codes: {} });
      expect(mostInFlight).toBeLessThanOrEqual(10);
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
        account: { failures: 0, lockedUntil: null, lockouts: 0, inFlight: 0, inFlightUntil: null },
        everywhere: { windowStart: T0, failures: 0 },
        ip: { windowStart: T0, failures: 0 },
      });
    });

    test('50 parallel guesses from one address with limit 20: exactly 20 are checked', async () => {
      const { app } = await seedApp(store());
      const result = await tallyValues(
        times(50, (i) =>
          store().reserveAuthAttempt({ applicationId: app.id, accountKey: `user:u${i}`, ip: '198.51.100.78', now: T0 }, { lockoutThreshold: 10, ipFailureLimit: 20, accountFailureLimit: 1000 }),
        ),
      );
      expect(result).toEqual({ values: { reserved: 20 }, codes: { RATE_LIMITED: 30 } });
    });

    test('50 parallel sign-ups with one username: exactly one succeeds', async () => {
      const { app } = await seedApp(store());
      const result = await tally(times(50, (i) => store().signUp({ user: makeUser(app.id, { username: i % 2 ? 'Carol' : 'CAROL', usernameKey: 'carol' }), device: null, now: T0 }, SYSTEM)));
      expect(result).toEqual({ fulfilled: 1, codes: { USERNAME_TAKEN: 49 } });
    });
  });
}
