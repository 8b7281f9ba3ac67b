// Bans, credential-check throttling, variables and announcements.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { AuthAttempt } from '../../src/application/ports/throttle-store.js';
import type { AnnouncementRecord, BanRecord } from '../../src/application/records.js';
import { IN_FLIGHT_LEASE_MS, IP_WINDOW_MS } from '../../src/domain/auth-throttle.js';
import type { BanType } from '../../src/domain/bans.js';
import type { ContractContext } from './store-contract.js';
import { domainError, makeLicense, makeSession, seedApp, seedUser, T0 } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';

const ban = (applicationId: string, type: BanType, value: string, createdAt = T0, origin: { propagatedFrom: string; expiresAt: number | null } | null = null): BanRecord => ({
  id: randomUUID(),
  applicationId,
  type,
  value,
  reason: `because ${type}`,
  createdAt,
  propagatedFrom: origin?.propagatedFrom ?? null,
  expiresAt: origin?.expiresAt ?? null,
});

const fresh = { failures: 0, lockedUntil: null, lockouts: 0, inFlight: 0, inFlightUntil: null };
const LEASE = IN_FLIGHT_LEASE_MS;
const DAY = 24 * 3_600_000;

/** A seeded generator (mulberry32): the same names on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export function banThrottleContentContract({ store, connect, readThrottle, test, section }: ContractContext): void {
  section('bans', () => {
    test('addBans stores new bans, keeps existing ones and returns them in input order', async () => {
      const { app } = await seedApp(store());
      const ip = ban(app.id, 'ip', '203.0.113.7');
      const [stored] = await store().addBans(app.id, [ip], T0, SYSTEM);
      expect(stored).toEqual(ip);
      const hw = ban(app.id, 'hardware_id', 'hw-9', T0 + 1);
      const again = await store().addBans(app.id, [hw, { ...ip, id: randomUUID(), reason: 'dup' }], T0 + 1, SYSTEM);
      expect(again).toEqual([hw, ip]);
      expect(await store().listBans(app.id, T0 + 1)).toEqual([hw, ip]);
      const { app: other } = await seedApp(store());
      expect(await store().listBans(other.id, T0 + 1)).toEqual([]);
    });

    test("findMatchingBans returns the application's bans among the keys", async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      await store().addBans(app.id, [ban(app.id, 'ip', '203.0.113.7'), ban(app.id, 'hardware_id', 'hw-9')], T0, SYSTEM);
      await store().addBans(other.id, [ban(other.id, 'user', 'u-1')], T0, SYSTEM);
      const found = await store().findMatchingBans(
        app.id,
        [
          { type: 'ip', value: '203.0.113.7' },
          { type: 'ip', value: 'hw-9' },
          { type: 'user', value: 'u-1' },
          { type: 'hardware_id', value: 'hw-9' },
        ],
        T0,
      );
      const byKey = (a: { type: string; value: string }, b: { type: string; value: string }) => `${a.type}${a.value}`.localeCompare(`${b.type}${b.value}`);
      expect([...found].sort(byKey).map(({ type, value, propagatedFrom }) => ({ type, value, propagatedFrom }))).toEqual([
        { type: 'hardware_id', value: 'hw-9', propagatedFrom: null },
        { type: 'ip', value: '203.0.113.7', propagatedFrom: null },
      ]);
      expect(await store().findMatchingBans(app.id, [], T0)).toEqual([]);
    });

    test('findMatchingBans with a user key also returns the license bans of every license that user redeemed', async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const other = await seedUser(store(), app.id);
      const licenses = [makeLicense(app.id), makeLicense(app.id), makeLicense(app.id), makeLicense(app.id)];
      await store().insertLicenses(licenses, SYSTEM);
      const redeem = (i: number, by: { id: string }) =>
        store().activateLicense({ applicationId: app.id, userId: by.id, licenseDigest: licenses[i]!.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
      // The user redeems two, another user one; the fourth is nobody's.
      await redeem(0, user);
      await redeem(1, user);
      await redeem(2, other);
      await store().addBans(
        app.id,
        licenses.map((l) => ban(app.id, 'license', l.id)),
        T0,
        SYSTEM,
      );
      const licenseValues = async (keys: Array<{ type: BanType; value: string }>) =>
        (await store().findMatchingBans(app.id, keys, T0))
          .filter((b) => b.type === 'license')
          .map((b) => b.value)
          .sort();
      const userKey = { type: 'user' as const, value: user.id };
      expect(await licenseValues([userKey])).toEqual([licenses[0]!.id, licenses[1]!.id].sort());
      // With the presented license among the keys too, and with a license the user holds presented again: each once.
      expect(await licenseValues([{ type: 'license', value: licenses[3]!.id }, userKey])).toEqual([licenses[0]!.id, licenses[1]!.id, licenses[3]!.id].sort());
      expect(await licenseValues([{ type: 'license', value: licenses[0]!.id }, userKey])).toEqual([licenses[0]!.id, licenses[1]!.id].sort());
      // Without a user key, only the licenses named; another application's user key names none here.
      expect(await licenseValues([{ type: 'ip', value: '203.0.113.7' }])).toEqual([]);
      const { app: elsewhere } = await seedApp(store());
      expect(await store().findMatchingBans(elsewhere.id, [userKey], T0)).toEqual([]);
    });

    test("every write to an application's bans bumps its bansVersion, and no other application's", async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const version = async (a: typeof app) => (await store().findApplicationByApiKey(a.apiKey))!.bansVersion;
      expect([await version(app), await version(other)]).toEqual([0, 0]);
      const [origin] = await store().addBans(app.id, [ban(app.id, 'user', 'u-1')], T0, SYSTEM);
      const afterAdd = await version(app);
      expect(afterAdd).toBeGreaterThan(0);
      // A ban that is there already writes nothing, and changes nothing.
      await store().addBans(app.id, [ban(app.id, 'user', 'u-1')], T0, SYSTEM);
      expect(await version(app)).toBe(afterAdd);
      // An expired propagated ban replaced in place (an update), then purged and deleted.
      await store().addBans(app.id, [ban(app.id, 'ip', '198.51.100.9', T0, { propagatedFrom: origin!.id, expiresAt: T0 + 10 })], T0, SYSTEM);
      const afterPropagated = await version(app);
      expect(afterPropagated).toBeGreaterThan(afterAdd);
      await store().addBans(app.id, [ban(app.id, 'ip', '198.51.100.9', T0 + 20, { propagatedFrom: origin!.id, expiresAt: T0 + 30 })], T0 + 20, SYSTEM);
      const afterReplaced = await version(app);
      expect(afterReplaced).toBeGreaterThan(afterPropagated);
      expect(await store().purgeExpiredBans(T0 + 40)).toBe(1);
      const afterPurge = await version(app);
      expect(afterPurge).toBeGreaterThan(afterReplaced);
      expect(await store().deleteBan(app.id, origin!.id, T0 + 50, SYSTEM)).toBe(true);
      expect(await version(app)).toBeGreaterThan(afterPurge);
      expect(await version(other)).toBe(0);
    });

    test('a propagated ban records its origin; an expired one neither matches nor lists, and a new ban replaces it', async () => {
      const { app } = await seedApp(store());
      const [origin] = await store().addBans(app.id, [ban(app.id, 'user', 'u-1')], T0, SYSTEM);
      const ipKey = { type: 'ip' as const, value: '198.51.100.4' };
      const propagated = ban(app.id, 'ip', ipKey.value, T0, { propagatedFrom: origin!.id, expiresAt: T0 + 1000 });
      expect(await store().addBans(app.id, [propagated], T0, SYSTEM)).toEqual([propagated]);
      expect(await store().findMatchingBans(app.id, [ipKey], T0 + 999)).toEqual([{ ...ipKey, id: propagated.id, propagatedFrom: origin!.id, expiresAt: T0 + 1000 }]);
      // Expired: on both the hot read (each dialect's own) and the list.
      expect(await store().findMatchingBans(app.id, [ipKey], T0 + 1000)).toEqual([]);
      expect((await store().listBans(app.id, T0 + 1000)).map((b) => b.id)).toEqual([origin!.id]);
      // Propagating onto the expired row starts a new ban.
      const again = ban(app.id, 'ip', ipKey.value, T0 + 2000, { propagatedFrom: origin!.id, expiresAt: T0 + 3000 });
      expect(await store().addBans(app.id, [again], T0 + 2000, SYSTEM)).toEqual([again]);
      expect(await store().findMatchingBans(app.id, [ipKey], T0 + 2500)).toEqual([{ ...ipKey, id: again.id, propagatedFrom: origin!.id, expiresAt: T0 + 3000 }]);
      // A live propagated ban stays when propagation meets it again...
      const third = ban(app.id, 'ip', ipKey.value, T0 + 2600, { propagatedFrom: randomUUID(), expiresAt: T0 + 9000 });
      expect(await store().addBans(app.id, [third], T0 + 2600, SYSTEM)).toEqual([again]);
      // ...but an owner's ban takes it over, for good.
      const owners = ban(app.id, 'ip', ipKey.value, T0 + 2700);
      expect(await store().addBans(app.id, [owners], T0 + 2700, SYSTEM)).toEqual([owners]);
      expect(await store().findMatchingBans(app.id, [ipKey], T0 + 10_000_000)).toEqual([{ ...ipKey, id: owners.id, propagatedFrom: null, expiresAt: null }]);
      // And an owner's ban is never replaced by propagation.
      expect(await store().addBans(app.id, [ban(app.id, 'ip', ipKey.value, T0 + 2800, { propagatedFrom: origin!.id, expiresAt: null })], T0 + 2800, SYSTEM)).toEqual([owners]);
    });

    test('purgeExpiredBans deletes only bans past their expiry', async () => {
      const { app } = await seedApp(store());
      const [origin] = await store().addBans(app.id, [ban(app.id, 'user', 'u-1')], T0, SYSTEM);
      const soon = ban(app.id, 'ip', '198.51.100.7', T0, { propagatedFrom: origin!.id, expiresAt: T0 + 1000 });
      const later = ban(app.id, 'ip', '198.51.100.8', T0, { propagatedFrom: origin!.id, expiresAt: T0 + 5000 });
      await store().addBans(app.id, [soon, later], T0, SYSTEM);
      expect(await store().purgeExpiredBans(T0 + 999)).toBe(0);
      expect(await store().purgeExpiredBans(T0 + 1000)).toBe(1);
      expect((await store().listBans(app.id, T0)).map((b) => b.id).sort()).toEqual([origin!.id, later.id].sort());
    });

    test('deleteBan with cascade also deletes the bans it propagated (clearing license flags); without, they stay', async () => {
      const { app } = await seedApp(store());
      const license = makeLicense(app.id);
      await store().insertLicenses([license], SYSTEM);
      const [a, b] = await store().addBans(app.id, [ban(app.id, 'user', 'u-a'), ban(app.id, 'user', 'u-b')], T0, SYSTEM);
      const fromA = [ban(app.id, 'ip', '198.51.100.5', T0, { propagatedFrom: a!.id, expiresAt: T0 + 5000 }), ban(app.id, 'license', license.id, T0, { propagatedFrom: a!.id, expiresAt: null })];
      const fromB = ban(app.id, 'hardware_id', 'hw-b', T0, { propagatedFrom: b!.id, expiresAt: null });
      await store().addBans(app.id, [...fromA, fromB], T0, SYSTEM);
      expect((await store().findLicenseById(app.id, license.id))?.banned).toBe(true);

      expect(await store().deleteBan(app.id, b!.id, T0, SYSTEM)).toBe(true);
      expect((await store().listBans(app.id, T0)).map((x) => x.id).sort()).toEqual([a!.id, ...fromA.map((x) => x.id), fromB.id].sort());

      expect(await store().deleteBan(app.id, a!.id, T0, SYSTEM, { cascade: true })).toBe(true);
      expect((await store().listBans(app.id, T0)).map((x) => x.id)).toEqual([fromB.id]);
      expect((await store().findLicenseById(app.id, license.id))?.banned).toBe(false);
      expect(await store().deleteBan(app.id, a!.id, T0, SYSTEM, { cascade: true })).toBe(false);
    });

    test("a user ban revokes the user's live sessions", async () => {
      const { app } = await seedApp(store());
      const user = await seedUser(store(), app.id);
      const session = makeSession(app.id, user.id);
      await store().openSession({ session, device: null, cap: 1, now: T0 }, SYSTEM);
      await store().addBans(app.id, [ban(app.id, 'user', user.id)], T0 + 3, SYSTEM);
      expect((await store().findSession(session.id))?.revokedAt).toBe(T0 + 3);
    });

    test('a license ban flags the license; deleting the ban clears the flag', async () => {
      const { app } = await seedApp(store());
      const license = makeLicense(app.id);
      await store().insertLicenses([license], SYSTEM);
      const [stored] = await store().addBans(app.id, [ban(app.id, 'license', license.id)], T0, SYSTEM);
      expect((await store().findLicenseById(app.id, license.id))?.banned).toBe(true);
      const user = await seedUser(store(), app.id);
      const activate = () => store().activateLicense({ applicationId: app.id, userId: user.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
      await domainError(activate(), 'BANNED');
      const { app: other } = await seedApp(store());
      expect(await store().deleteBan(other.id, stored?.id ?? '', T0, SYSTEM)).toBe(false);
      expect(await store().deleteBan(app.id, stored?.id ?? '', T0, SYSTEM)).toBe(true);
      expect(await store().deleteBan(app.id, stored?.id ?? '', T0, SYSTEM)).toBe(false);
      expect((await store().findLicenseById(app.id, license.id))?.banned).toBe(false);
      await activate();
    });
  });

  section('throttle', () => {
    const limits = { lockoutThreshold: 3, ipFailureLimit: 5, accountFailureLimit: 100 };
    type KeyedAttempt = AuthAttempt & { accountKey: string };
    const attemptOf = (applicationId: string, over: Partial<KeyedAttempt> = {}): KeyedAttempt => ({
      applicationId,
      accountKey: 'user:alice',
      ip: '198.51.100.4',
      now: T0,
      ...over,
    });

    test('readThrottle of untouched counters is fresh', async () => {
      const { app } = await seedApp(store());
      expect(await readThrottle(app.id, 'user:nobody', '198.51.100.4')).toEqual({ account: fresh, everywhere: null, ip: null });
    });

    test('a reservation counts a check in flight on the account and a failure on the address', async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      expect(await store().reserveAuthAttempt(attempt, limits)).toBe('reserved');
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
        account: { ...fresh, inFlight: 1, inFlightUntil: T0 + LEASE },
        everywhere: { windowStart: T0, failures: 1 },
        ip: { windowStart: T0, failures: 1 },
      });
      expect(await store().reserveAuthAttempt({ ...attempt, now: T0 + 5 }, limits)).toBe('reserved');
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
        account: { ...fresh, inFlight: 2, inFlightUntil: T0 + 5 + LEASE },
        everywhere: { windowStart: T0, failures: 2 },
        ip: { windowStart: T0, failures: 2 },
      });
    });

    test("a settled success resets the account and gives back the address's failure", async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      await store().reserveAuthAttempt(attempt, limits);
      await store().settleAuthAttempt(attempt, 'failure', limits);
      await store().reserveAuthAttempt(attempt, limits);
      await store().reserveAuthAttempt(attempt, limits);
      expect((await readThrottle(app.id, attempt.accountKey, attempt.ip)).account).toEqual({ ...fresh, failures: 1, inFlight: 2, inFlightUntil: T0 + LEASE });
      await store().settleAuthAttempt(attempt, 'success', limits);
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
        account: { ...fresh, inFlight: 1, inFlightUntil: T0 + LEASE },
        everywhere: { windowStart: T0, failures: 2 },
        ip: { windowStart: T0, failures: 2 },
      });
      await store().settleAuthAttempt(attempt, 'success', limits);
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({ account: fresh, everywhere: { windowStart: T0, failures: 1 }, ip: { windowStart: T0, failures: 1 } });
    });

    test("a settled failure keeps the address's failure and counts one on the account", async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      await store().reserveAuthAttempt(attempt, limits);
      await store().settleAuthAttempt({ ...attempt, now: T0 + 10 }, 'failure', limits);
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
        account: { ...fresh, failures: 1 },
        everywhere: { windowStart: T0, failures: 1 },
        ip: { windowStart: T0, failures: 1 },
      });
    });

    test('the threshold-th settled failure locks the account; refusals write nothing', async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      for (let i = 0; i < 3; i++) expect(await store().reserveAuthAttempt(attempt, limits)).toBe('reserved');
      for (let i = 0; i < 3; i++) await store().settleAuthAttempt(attempt, 'failure', limits);
      const locked = await readThrottle(app.id, attempt.accountKey, attempt.ip);
      expect(locked).toEqual({ account: { ...fresh, lockedUntil: T0 + 60_000, lockouts: 1 }, everywhere: { windowStart: T0, failures: 3 }, ip: { windowStart: T0, failures: 3 } });
      const error = await domainError(store().reserveAuthAttempt({ ...attempt, now: T0 + 1000 }, limits), 'ACCOUNT_LOCKED');
      expect(error.details.retryAfterSeconds).toBe(59);
      // A refused attempt writes nothing, to either counter.
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual(locked);
      // Another account from the same address is still allowed.
      expect(await store().reserveAuthAttempt({ ...attempt, accountKey: 'user:bob' }, limits)).toBe('reserved');
      // Once the lock expires the account gets turns again, and a success forgives the lockouts.
      const later = { ...attempt, now: T0 + 60_000 };
      expect(await store().reserveAuthAttempt(later, limits)).toBe('reserved');
      await store().settleAuthAttempt(later, 'success', limits);
      expect((await readThrottle(app.id, attempt.accountKey, attempt.ip)).account).toEqual(fresh);
    });

    test("'busy' once failures plus checks in flight reach the threshold, and nothing is written", async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      await store().reserveAuthAttempt(attempt, limits);
      await store().settleAuthAttempt(attempt, 'failure', limits);
      await store().reserveAuthAttempt(attempt, limits);
      await store().reserveAuthAttempt(attempt, limits);
      const full = await readThrottle(app.id, attempt.accountKey, attempt.ip);
      expect(full).toEqual({ account: { ...fresh, failures: 1, inFlight: 2, inFlightUntil: T0 + LEASE }, everywhere: { windowStart: T0, failures: 3 }, ip: { windowStart: T0, failures: 3 } });
      expect(await store().reserveAuthAttempt({ ...attempt, now: T0 + 1 }, limits)).toBe('busy');
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual(full);
      // A settled failure keeps the sum, so the account stays busy; a success frees turns.
      await store().settleAuthAttempt(attempt, 'failure', limits);
      expect(await store().reserveAuthAttempt(attempt, limits)).toBe('busy');
      await store().settleAuthAttempt(attempt, 'success', limits);
      expect(await store().reserveAuthAttempt(attempt, limits)).toBe('reserved');
      expect((await readThrottle(app.id, attempt.accountKey, attempt.ip)).account).toEqual({ ...fresh, inFlight: 1, inFlightUntil: T0 + LEASE });
    });

    test('checks in flight lapse with their lease', async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      await store().reserveAuthAttempt(attempt, limits);
      await store().settleAuthAttempt(attempt, 'failure', limits);
      await store().reserveAuthAttempt(attempt, limits);
      await store().reserveAuthAttempt(attempt, limits);
      expect(await store().reserveAuthAttempt({ ...attempt, now: T0 + LEASE - 1 }, limits)).toBe('busy');
      const lapsed = { ...attempt, now: T0 + LEASE };
      expect(await store().reserveAuthAttempt(lapsed, limits)).toBe('reserved');
      expect((await readThrottle(app.id, attempt.accountKey, attempt.ip)).account).toEqual({ ...fresh, failures: 1, inFlight: 1, inFlightUntil: T0 + 2 * LEASE });
    });

    // What another instance or an owner changed since this store's last step on the counters
    // must count at once, whatever a store may keep of them.
    test('a lock lifted through another connection lets the next check through at once', async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      for (let i = 0; i < 3; i++) await store().reserveAuthAttempt(attempt, limits);
      for (let i = 0; i < 3; i++) await store().settleAuthAttempt(attempt, 'failure', limits);
      await domainError(store().reserveAuthAttempt({ ...attempt, now: T0 + 1 }, limits), 'ACCOUNT_LOCKED');
      await (await connect()).unlockAccounts(app.id, [attempt.accountKey]);
      expect(await store().reserveAuthAttempt({ ...attempt, now: T0 + 2 }, limits)).toBe('reserved');
      expect((await readThrottle(app.id, attempt.accountKey, attempt.ip)).account).toEqual({ ...fresh, inFlight: 1, inFlightUntil: T0 + 2 + LEASE });
    });

    test('counters deleted through another connection are counted afresh, not written back as they were', async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      await store().reserveAuthAttempt(attempt, limits);
      await store().settleAuthAttempt(attempt, 'failure', limits);
      // The account's rows go; the address's stays. The next reservation must not bring back
      // the failure this store last saw.
      await (await connect()).unlockAccounts(app.id, [attempt.accountKey]);
      expect(await store().reserveAuthAttempt(attempt, limits)).toBe('reserved');
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
        account: { ...fresh, inFlight: 1, inFlightUntil: T0 + LEASE },
        everywhere: { windowStart: T0, failures: 1 },
        ip: { windowStart: T0, failures: 2 },
      });
    });

    test('two connections taking turns on one address and account count every check exactly', async () => {
      const { app } = await seedApp(store());
      const peer = await connect();
      const attempt = attemptOf(app.id);
      const stores = [store(), peer];
      // Each store's own last view is stale after every step of the other.
      for (let i = 0; i < 4; i++) expect(await stores[i % 2]!.reserveAuthAttempt(attempt, { ...limits, lockoutThreshold: 10 })).toBe('reserved');
      await peer.settleAuthAttempt(attempt, 'success', { ...limits, lockoutThreshold: 10 });
      await store().settleAuthAttempt(attempt, 'failure', { ...limits, lockoutThreshold: 10 });
      await peer.settleAuthAttempt(attempt, 'failure', { ...limits, lockoutThreshold: 10 });
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
        account: { ...fresh, failures: 2, inFlight: 1, inFlightUntil: T0 + LEASE },
        everywhere: { windowStart: T0, failures: 3 },
        ip: { windowStart: T0, failures: 3 },
      });
      // The address limit (5) is reached on the sixth failure counted, whichever store counts it.
      expect(await store().reserveAuthAttempt(attempt, { ...limits, lockoutThreshold: 10 })).toBe('reserved');
      expect(await peer.reserveAuthAttempt(attempt, { ...limits, lockoutThreshold: 10 })).toBe('reserved');
      await domainError(store().reserveAuthAttempt(attempt, { ...limits, lockoutThreshold: 10 }), 'RATE_LIMITED');
    });

    test('without an account key only the address is throttled', async () => {
      const { app } = await seedApp(store());
      const attempt: AuthAttempt = { ...attemptOf(app.id), accountKey: null };
      // Past the lockout threshold (3): no account counts, so never busy nor locked.
      for (let i = 0; i < 4; i++) expect(await store().reserveAuthAttempt(attempt, limits)).toBe('reserved');
      await store().settleAuthAttempt(attempt, 'success', limits);
      await store().settleAuthAttempt(attempt, 'failure', limits);
      expect(await readThrottle(app.id, 'user:alice', attempt.ip)).toEqual({ account: fresh, everywhere: null, ip: { windowStart: T0, failures: 3 } });
      for (const key of ['', 'null', 'user:null', 'license:malformed']) {
        expect((await readThrottle(app.id, key, attempt.ip)).account).toEqual(fresh);
      }
      // The address limit (5) still holds.
      await store().reserveAuthAttempt(attempt, limits);
      await store().reserveAuthAttempt(attempt, limits);
      const before = await readThrottle(app.id, 'user:alice', attempt.ip);
      expect(before.ip).toEqual({ windowStart: T0, failures: 5 });
      await domainError(store().reserveAuthAttempt(attempt, limits), 'RATE_LIMITED');
      expect(await readThrottle(app.id, 'user:alice', attempt.ip)).toEqual(before);
    });

    test('a lock from one address leaves the account open from another (a stranger cannot lock its owner out)', async () => {
      const { app } = await seedApp(store());
      const attacker = attemptOf(app.id, { ip: '203.0.113.66' });
      for (let i = 0; i < 3; i++) await store().reserveAuthAttempt(attacker, limits);
      for (let i = 0; i < 3; i++) await store().settleAuthAttempt(attacker, 'failure', limits);
      await domainError(store().reserveAuthAttempt({ ...attacker, now: T0 + 1 }, limits), 'ACCOUNT_LOCKED');
      const owner = attemptOf(app.id, { now: T0 + 1 });
      expect(await store().reserveAuthAttempt(owner, limits)).toBe('reserved');
      await store().settleAuthAttempt(owner, 'success', limits);
      // The owner's success forgives nothing at the attacker's address.
      await domainError(store().reserveAuthAttempt({ ...attacker, now: T0 + 2 }, limits), 'ACCOUNT_LOCKED');
      expect((await readThrottle(app.id, attacker.accountKey, attacker.ip)).account).toMatchObject({ lockouts: 1, lockedUntil: T0 + 60_000 });
      expect((await readThrottle(app.id, owner.accountKey, owner.ip)).everywhere).toEqual({ windowStart: T0, failures: 3 });
    });

    test("past the hour's failures from every network the account is locked everywhere until the window ends", async () => {
      const { app } = await seedApp(store());
      const tight = { ...limits, ipFailureLimit: 100, accountFailureLimit: 4 };
      const ips = ['203.0.113.1', '203.0.114.1', '203.0.115.1', '203.0.116.1'];
      for (const ip of ips) {
        await store().reserveAuthAttempt(attemptOf(app.id, { ip }), tight);
        await store().settleAuthAttempt(attemptOf(app.id, { ip }), 'failure', tight);
      }
      const error = await domainError(store().reserveAuthAttempt(attemptOf(app.id, { ip: '198.51.100.200', now: T0 + 1000 }), tight), 'ACCOUNT_LOCKED');
      expect(error.details.retryAfterSeconds).toBe(3600 - 1);
      // Another account is not affected, and the lock ends with the window.
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:bob', ip: '198.51.100.200' }), tight)).toBe('reserved');
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { ip: '198.51.100.200', now: T0 + 3_600_000 }), tight)).toBe('reserved');
    });

    test("past the hour's failures a caller familiar to the account is still reserved, and counted", async () => {
      const { app } = await seedApp(store());
      const tight = { ...limits, ipFailureLimit: 100, accountFailureLimit: 2 };
      for (const ip of ['203.0.113.1', '203.0.114.1']) {
        await store().reserveAuthAttempt(attemptOf(app.id, { ip }), tight);
        await store().settleAuthAttempt(attemptOf(app.id, { ip }), 'failure', tight);
      }
      await domainError(store().reserveAuthAttempt(attemptOf(app.id, { ip: '198.51.100.200' }), tight), 'ACCOUNT_LOCKED');
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { ip: '198.51.100.200', familiar: true }), tight)).toBe('reserved');
      expect((await readThrottle(app.id, 'user:alice', '198.51.100.200')).everywhere).toEqual({ windowStart: T0, failures: 3 });
    });

    test('the addresses of one /24 (IPv4) or /48 (IPv6) share one counter of consecutive failures', async () => {
      const { app } = await seedApp(store());
      const roomy = { ...limits, ipFailureLimit: 100 };
      for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        await store().reserveAuthAttempt(attemptOf(app.id, { ip }), roomy);
        await store().settleAuthAttempt(attemptOf(app.id, { ip }), 'failure', roomy);
      }
      await domainError(store().reserveAuthAttempt(attemptOf(app.id, { ip: '203.0.113.200', now: T0 + 1 }), roomy), 'ACCOUNT_LOCKED');
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { ip: '203.0.114.1', now: T0 + 1 }), roomy)).toBe('reserved');
      for (const ip of ['2001:db8:5:1::/64', '2001:db8:5:2::/64', '2001:db8:5:3::/64']) {
        await store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:bob', ip }), roomy);
        await store().settleAuthAttempt(attemptOf(app.id, { accountKey: 'user:bob', ip }), 'failure', roomy);
      }
      await domainError(store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:bob', ip: '2001:db8:5:ffff::/64', now: T0 + 1 }), roomy), 'ACCOUNT_LOCKED');
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:bob', ip: '2001:db8:6::/64', now: T0 + 1 }), roomy)).toBe('reserved');
    });

    test("unlockAccounts lifts the accounts' locks at every address and everywhere, and only theirs", async () => {
      const { app } = await seedApp(store());
      const roomy = { ...limits, ipFailureLimit: 100 };
      const lock = async (accountKey: string, ip: string) => {
        for (let i = 0; i < 3; i++) await store().reserveAuthAttempt(attemptOf(app.id, { accountKey, ip }), roomy);
        for (let i = 0; i < 3; i++) await store().settleAuthAttempt(attemptOf(app.id, { accountKey, ip }), 'failure', roomy);
      };
      await lock('user:alice', '203.0.113.1');
      await lock('activation:alice', '203.0.113.2');
      await lock('user:bob', '203.0.113.1');
      await store().unlockAccounts(app.id, ['user:alice', 'activation:alice']);
      expect(await readThrottle(app.id, 'user:alice', '203.0.113.1')).toMatchObject({ account: fresh, everywhere: null });
      expect(await readThrottle(app.id, 'activation:alice', '203.0.113.2')).toMatchObject({ account: fresh, everywhere: null });
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:alice', ip: '203.0.113.1', now: T0 + 1 }), roomy)).toBe('reserved');
      await domainError(store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:bob', ip: '203.0.113.1', now: T0 + 1 }), roomy), 'ACCOUNT_LOCKED');
    });

    test("past the address's limit an account familiar with the address is still reserved; others, and checks without an account, are not", async () => {
      const { app } = await seedApp(store());
      for (let i = 0; i < 5; i++) await store().reserveAuthAttempt(attemptOf(app.id, { accountKey: `user:u${i}` }), limits);
      await domainError(store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:stranger' }), limits), 'RATE_LIMITED');
      await domainError(store().reserveAuthAttempt({ ...attemptOf(app.id), accountKey: null, familiar: true }, limits), 'RATE_LIMITED');
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { familiar: true }), limits)).toBe('reserved');
      expect((await readThrottle(app.id, 'user:alice', '198.51.100.4')).ip).toEqual({ windowStart: T0, failures: 6 });
    });

    test('purgeThrottle forgets ended windows and counters idle for a day, never a live lock or window', async () => {
      const { app } = await seedApp(store());
      const attempt = attemptOf(app.id);
      for (let i = 0; i < 3; i++) await store().reserveAuthAttempt(attempt, limits);
      for (let i = 0; i < 3; i++) await store().settleAuthAttempt(attempt, 'failure', limits);
      const locked = await readThrottle(app.id, attempt.accountKey, attempt.ip);
      expect(await store().purgeThrottle(T0 + 30_000)).toEqual({ deleted: 0, kept: 3 });
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual(locked);
      // The address's window ends after 10 minutes, the account's after an hour; the counter stays
      // until it has sat idle for a day.
      expect(await store().purgeThrottle(T0 + IP_WINDOW_MS)).toEqual({ deleted: 1, kept: 2 });
      expect(await store().purgeThrottle(T0 + 3_600_000)).toEqual({ deleted: 1, kept: 1 });
      expect((await readThrottle(app.id, attempt.accountKey, attempt.ip)).account).toEqual(locked.account);
      expect(await store().purgeThrottle(T0 + DAY - 1)).toEqual({ deleted: 0, kept: 1 });
      expect(await store().purgeThrottle(T0 + DAY)).toEqual({ deleted: 1, kept: 0 });
      expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({ account: fresh, everywhere: null, ip: null });
    });

    test('under a stream of random names the counters stay bounded (purged on a schedule)', async () => {
      const { app } = await seedApp(store());
      const random = seeded(12);
      const STEP = 30 * 60_000;
      const PER_STEP = 4;
      let most = 0;
      let deleted = 0;
      for (let step = 0; step < 96; step++) {
        const now = T0 + step * STEP;
        for (let i = 0; i < PER_STEP; i++) {
          const guess = { applicationId: app.id, accountKey: `user:${random().toString(36).slice(2)}`, ip: `203.0.${step % 250}.${i + 1}`, now };
          await store().reserveAuthAttempt(guess, limits);
          await store().settleAuthAttempt(guess, 'failure', limits);
        }
        const purged = await store().purgeThrottle(now);
        deleted += purged.deleted;
        if (step >= 48) most = Math.max(most, purged.kept);
      }
      // 384 names were tried; at most a day's worth of idle counters (48 steps and this one), the
      // last hour's account windows and this step's address windows are ever kept.
      expect(deleted).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(PER_STEP * 49 + PER_STEP * 2 + PER_STEP);
    });

    test('reserveSignUp counts sign-ups per address and per application; a full one is RATE_LIMITED and writes nothing', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const signUpLimits = { perAddress: 2, perApplication: 3 };
      const slot = (applicationId: string, address: string, now = T0) => ({ applicationId, address, now });
      await store().reserveSignUp(slot(app.id, '203.0.113.1'), signUpLimits);
      await store().reserveSignUp(slot(app.id, '203.0.113.1'), signUpLimits);
      const full = await domainError(store().reserveSignUp(slot(app.id, '203.0.113.1', T0 + 60_000), signUpLimits), 'RATE_LIMITED');
      expect(full.details.retryAfterSeconds).toBe(3600 - 60);
      // The refusal counted nothing on the application: one more address still fits.
      await store().reserveSignUp(slot(app.id, '203.0.113.2'), signUpLimits);
      await domainError(store().reserveSignUp(slot(app.id, '203.0.113.3'), signUpLimits), 'RATE_LIMITED');
      // Another application is unaffected, from the same address too.
      await store().reserveSignUp(slot(other.id, '203.0.113.1'), signUpLimits);
      // A failed sign-up gives its count back; the windows end after an hour.
      await store().releaseSignUp(slot(app.id, '203.0.113.1'), signUpLimits);
      await store().reserveSignUp(slot(app.id, '203.0.113.1'), signUpLimits);
      await store().reserveSignUp(slot(app.id, '203.0.113.3', T0 + 3_600_000), signUpLimits);
      expect((await store().purgeThrottle(T0 + 3_600_000)).kept).toBe(2);
    });

    test("reserveSignUp tells which sign-up filled the application's window, once; without a per-application limit it counts only the address", async () => {
      const { app } = await seedApp(store());
      const limits = { perAddress: 100, perApplication: 2 };
      const slot = (address: string, now = T0) => ({ applicationId: app.id, address, now });
      expect(await store().reserveSignUp(slot('203.0.113.1'), limits)).toEqual({ applicationFilledUntil: null });
      expect(await store().reserveSignUp(slot('203.0.113.2', T0 + 5), limits)).toEqual({ applicationFilledUntil: T0 + 3_600_000 });
      await domainError(store().reserveSignUp(slot('203.0.113.3', T0 + 6), limits), 'RATE_LIMITED');
      const { app: open } = await seedApp(store());
      const unlimited = { perAddress: 3, perApplication: null };
      for (let i = 0; i < 3; i++) {
        expect(await store().reserveSignUp({ applicationId: open.id, address: `198.51.100.${i}`, now: T0 }, unlimited)).toEqual({ applicationFilledUntil: null });
      }
      await store().releaseSignUp({ applicationId: open.id, address: '198.51.100.0', now: T0 }, unlimited);
      // The limited application's window and two address windows; the other's three address windows only.
      expect((await store().purgeThrottle(T0)).kept).toBe(3 + 3);
    });

    test('an address over its limit is RATE_LIMITED with a retry delay, and nothing is written', async () => {
      const { app } = await seedApp(store());
      for (let i = 0; i < 5; i++) await store().reserveAuthAttempt(attemptOf(app.id, { accountKey: `user:u${i}` }), limits);
      const before = await readThrottle(app.id, 'user:fresh', '198.51.100.4');
      const error = await domainError(store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:fresh', now: T0 + 60_000 }), limits), 'RATE_LIMITED');
      expect(error.details.retryAfterSeconds).toBe((IP_WINDOW_MS - 60_000) / 1000);
      expect(await readThrottle(app.id, 'user:fresh', '198.51.100.4')).toEqual(before);
      expect(before).toEqual({ account: fresh, everywhere: null, ip: { windowStart: T0, failures: 5 } });
      // A checked account is not charged either.
      const u0 = await readThrottle(app.id, 'user:u0', '198.51.100.4');
      await domainError(store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:u0', now: T0 + 1 }), limits), 'RATE_LIMITED');
      expect(await readThrottle(app.id, 'user:u0', '198.51.100.4')).toEqual(u0);
      // Another address, or the same one after the window, is allowed.
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:fresh', ip: '198.51.100.5' }), limits)).toBe('reserved');
      expect(await store().reserveAuthAttempt(attemptOf(app.id, { accountKey: 'user:fresh', now: T0 + IP_WINDOW_MS }), limits)).toBe('reserved');
    });
  });

  section('content', () => {
    test('putVariable inserts or replaces; listVariables is by name; deleteVariable reports', async () => {
      const { app } = await seedApp(store());
      const v = { applicationId: app.id, name: 'zeta', value: '1', isPublic: false };
      expect(await store().putVariable(v, T0, SYSTEM)).toEqual(v);
      expect(await store().putVariable({ ...v, value: '2', isPublic: true }, T0, SYSTEM)).toEqual({ ...v, value: '2', isPublic: true });
      await store().putVariable({ applicationId: app.id, name: 'alpha', value: 'a', isPublic: true }, T0, SYSTEM);
      expect((await store().listVariables(app.id)).map((x) => [x.name, x.value])).toEqual([
        ['alpha', 'a'],
        ['zeta', '2'],
      ]);
      expect(await store().deleteVariable(app.id, 'zeta', T0, SYSTEM)).toBe(true);
      expect(await store().deleteVariable(app.id, 'zeta', T0, SYSTEM)).toBe(false);
      expect((await store().listVariables(app.id)).map((x) => x.name)).toEqual(['alpha']);
    });

    test('announcements are created, updated, listed newest publish_from first and deleted', async () => {
      const { app } = await seedApp(store());
      const make = (publishFrom: number, title: string): AnnouncementRecord => ({
        id: randomUUID(),
        applicationId: app.id,
        title,
        contentHtml: `<p>${title}</p>`,
        status: 'DRAFT',
        publishFrom,
        publishUntil: null,
        createdAt: T0,
      });
      const older = make(T0, 'older');
      const newer = make(T0 + 1000, 'newer');
      await store().createAnnouncement(older, SYSTEM);
      await store().createAnnouncement(newer, SYSTEM);
      expect(await store().findAnnouncement(app.id, older.id)).toEqual(older);
      const edited = { ...older, title: 'edited', status: 'PUBLISHED' as const, publishUntil: T0 + 5000 };
      expect(await store().patchAnnouncement(app.id, older.id, { title: 'edited', status: 'PUBLISHED', publishUntil: T0 + 5000 }, T0, SYSTEM)).toEqual(edited);
      expect(await store().listAnnouncements(app.id)).toEqual([newer, edited]);
      // A window the merge makes invalid is refused and writes nothing.
      await expect(store().patchAnnouncement(app.id, older.id, { title: 'lost', publishFrom: T0 + 5000 }, T0, SYSTEM)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(await store().findAnnouncement(app.id, older.id)).toEqual(edited);
      const { app: other } = await seedApp(store());
      expect(await store().patchAnnouncement(other.id, older.id, { title: 'x' }, T0, SYSTEM)).toBeNull();
      expect(await store().findAnnouncement(other.id, older.id)).toBeNull();
      expect(await store().deleteAnnouncement(other.id, older.id, T0, SYSTEM)).toBe(false);
      expect(await store().deleteAnnouncement(app.id, older.id, T0, SYSTEM)).toBe(true);
      expect(await store().listAnnouncements(app.id)).toEqual([newer]);
    });
  });
}
