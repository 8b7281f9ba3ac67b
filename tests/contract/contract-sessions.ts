// Sessions and devices: admission, replacement of the same device's sessions, the caps, and the
// rollback of a refused login.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Store } from '../../src/application/ports/store.js';
import type { ContractContext } from './store-contract.js';
import { domainError, makeLicense, makeSession, seedApp, seedUser, T0, CAP_DEFAULTS } from './fixtures.js';
import { newDevice } from '../../src/application/new-device.js';
import { SYSTEM } from '../../src/application/events/actor.js';

async function userOf(store: Store) {
  const { app } = await seedApp(store);
  const user = await seedUser(store, app.id);
  return { app, user };
}

/** The user's registered hardware ids, sorted. */
const devicesOf = async (store: Store, applicationId: string, userId: string) => ((await store.getUserDetails(applicationId, userId))?.devices ?? []).map((d) => d.hardwareId).sort();

/** A license file to record at issuance (SessionStore.admitLicenseFileDevice). */
const fileOf = (ttlMinutes = 60) => ({ id: randomUUID(), ttlMinutes, issuedBy: { type: 'end_user' as const, id: 'someone' } });

export function sessionContract({ store, test, section }: ContractContext): void {
  section('sessions', () => {
    test('history: a login among many ended sessions still counts only live ones; the purge deletes only sessions ended before the cut; login counts outlive it', async () => {
      const { app, user } = await userOf(store());
      const other = await seedUser(store(), app.id);
      const DAY = 86_400_000;
      // A year of ended sessions of this user and another: expired, and revoked ones.
      const ended = [];
      for (let i = 0; i < 200; i++) {
        const createdAt = T0 - 365 * DAY + i * DAY;
        ended.push(makeSession(app.id, i % 2 === 0 ? user.id : other.id, { createdAt, expiresAt: createdAt + 3_600_000, revokedAt: i % 3 === 0 ? createdAt + 60_000 : null }));
      }
      for (const session of ended) await store().openSession({ session, device: null, cap: 1, now: session.createdAt }, SYSTEM);
      // With a cap of one, the login succeeds: none of the ended sessions counts.
      const live = makeSession(app.id, user.id, { createdAt: T0, expiresAt: T0 + 3_600_000 });
      await store().openSession({ session: live, device: null, cap: 1, now: T0 }, SYSTEM);
      await domainError(store().openSession({ session: makeSession(app.id, user.id), device: null, cap: 1, now: T0 + 1 }, SYSTEM), 'SESSION_LIMIT_REACHED');

      const window = { from: T0 - 400 * DAY, days: 401 };
      const loginsBefore = (await store().applicationOverview(app.id, T0, window)).loginsByDay;
      expect(loginsBefore.reduce((n, d) => n + d.count, 0)).toBe(201);

      // Keep 30 days: sessions that expired before T0 - 30 days go, in small batches; the rest stay.
      const cut = T0 - 30 * DAY;
      const kept = ended.filter((x) => x.expiresAt >= cut);
      expect(await store().purgeEndedSessions(cut, 7)).toBe(ended.length - kept.length);
      for (const session of ended) expect((await store().findSession(session.id)) !== null, session.id).toBe(session.expiresAt >= cut);
      expect(await store().findSession(live.id)).not.toBeNull();
      expect(await store().purgeEndedSessions(cut)).toBe(0);
      // The overview's login counts are kept apart from the sessions.
      expect((await store().applicationOverview(app.id, T0, window)).loginsByDay).toEqual(loginsBefore);
    });

    test('openSession re-reads the user: a timeout, user ban or lost membership that overtook the login refuses it', async () => {
      const { app, user } = await userOf(store());
      const attempt = () => makeSession(app.id, user.id);
      const open = (session: ReturnType<typeof attempt>) => store().openSession({ session, device: null, cap: 5, now: T0 }, SYSTEM);

      await store().setUserTimeout(app.id, user.id, { until: T0 + 60_000, reason: null }, T0, SYSTEM);
      const timedOut = attempt();
      await domainError(open(timedOut), 'TIMED_OUT');
      expect(await store().findSession(timedOut.id)).toBeNull();
      await store().setUserTimeout(app.id, user.id, null, T0, SYSTEM);

      await store().addBans(app.id, [{ id: randomUUID(), applicationId: app.id, type: 'user', value: user.id, reason: null, createdAt: T0, propagatedFrom: null, expiresAt: null }], T0, SYSTEM);
      const banned = attempt();
      await domainError(open(banned), 'BANNED');
      expect(await store().findSession(banned.id)).toBeNull();

      const other = await seedUser(store(), app.id, { membership: { activeUntil: T0 - 1, isLifetime: false } });
      const lapsed = makeSession(app.id, other.id);
      await domainError(store().openSession({ session: lapsed, device: null, cap: 5, now: T0 }, SYSTEM), 'MEMBERSHIP_INACTIVE');
      expect(await store().findSession(lapsed.id)).toBeNull();
    });

    test('findSessionAccess reads the session with the named user of the application', async () => {
      const { app, user } = await userOf(store());
      const session = makeSession(app.id, user.id, { hardwareId: 'hw-1' });
      await store().openSession({ session, device: { hardwareId: 'hw-1', allowed: 1, newDeviceId: randomUUID() }, cap: 1, now: T0 }, SYSTEM);
      const withUser = async () => ({ session, user: await store().findUserById(app.id, user.id) });
      expect(await store().findSessionAccess(app.id, session.id, user.id)).toEqual(await withUser());
      // Licenses the user redeemed change nothing in it (bans match them by join).
      const license = makeLicense(app.id);
      await store().insertLicenses([license], SYSTEM);
      await store().activateLicense({ applicationId: app.id, userId: user.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
      expect(await store().findSessionAccess(app.id, session.id, user.id)).toEqual(await withUser());
      // The session with another user named, or the user of another application: no such user here.
      const other = await seedUser(store(), app.id);
      expect(await store().findSessionAccess(app.id, session.id, other.id)).toEqual({ session, user: await store().findUserById(app.id, other.id) });
      const { app: elsewhere } = await seedApp(store());
      expect(await store().findSessionAccess(elsewhere.id, session.id, user.id)).toEqual({ session, user: null });
      // No session: nothing.
      expect(await store().findSessionAccess(app.id, randomUUID(), user.id)).toEqual({ session: null, user: null });
    });

    test('findSessionAccess read again after a change to the session or the user answers with the change', async () => {
      // PostgreSQL remembers an answer with its rows' versions (remembered-by-version.ts): each
      // change must show on the very next read, as a fresh read of each part shows it.
      const { app, user } = await userOf(store());
      const session = makeSession(app.id, user.id);
      await store().openSession({ session, device: null, cap: 5, now: T0 }, SYSTEM);
      const licenses = [makeLicense(app.id)];
      await store().insertLicenses(licenses, SYSTEM);
      const read = () => store().findSessionAccess(app.id, session.id, user.id);
      const fresh = async () => {
        const found = await store().findSession(session.id);
        return found === null ? { session: null, user: null } : { session: found, user: await store().findUserById(app.id, user.id) };
      };
      const changes: Array<[string, () => Promise<unknown>]> = [
        [
          'a redeemed license (and the membership it adds)',
          () => store().activateLicense({ applicationId: app.id, userId: user.id, licenseDigest: licenses[0]!.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM),
        ],
        ["the user's limits", () => store().updateUserLimits(app.id, user.id, { allowedSessions: 7 })],
        ['the session revoked', () => store().revokeSession(session.id, T0 + 1, SYSTEM)],
        ['a timeout', () => store().setUserTimeout(app.id, user.id, { until: T0 + 60_000, reason: 'calm down' }, T0 + 2, SYSTEM)],
        ['the application deleted', () => store().deleteApplication(app.id)],
      ];
      let before = await read();
      const again = await read();
      expect(again).toEqual(before);
      expect(before).toEqual(await fresh());
      // Remembered or not, every read makes its own records: a caller may change the ones it got.
      expect([again.session === before.session, again.user === before.user]).toEqual([false, false]);
      for (const [what, change] of changes) {
        await change();
        const after = await read();
        expect(after, what).toEqual(await fresh());
        expect(after, what).not.toEqual(before);
        expect(await read(), what).toEqual(after);
        before = after;
      }
      expect(before).toEqual({ session: null, user: null });
    });

    test('findSessionAccess asked by many requests at once answers each with its own, whatever the others asked', async () => {
      // PostgreSQL answers the requests of one turn with one statement (FastReads.prepareForRequests).
      const { app, user } = await userOf(store());
      const session = makeSession(app.id, user.id);
      await store().openSession({ session, device: null, cap: 5, now: T0 }, SYSTEM);
      const { app: elsewhere } = await seedApp(store());
      const stranger = await seedUser(store(), elsewhere.id);
      const strangerSession = makeSession(elsewhere.id, stranger.id);
      await store().openSession({ session: strangerSession, device: null, cap: 5, now: T0 }, SYSTEM);
      const asks: Array<[string, string, string]> = [
        [app.id, session.id, user.id],
        // Another application's session and user, asked for this one, and the other way round.
        [app.id, strangerSession.id, stranger.id],
        [elsewhere.id, session.id, user.id],
        [elsewhere.id, strangerSession.id, stranger.id],
        [app.id, randomUUID(), user.id],
        // Text no database keeps: it matches nothing, and fails none of the others.
        [app.id, `${session.id}\u0000`, user.id],
      ];
      const alone: unknown[] = [];
      for (const [applicationId, sessionId, userId] of asks) alone.push(await store().findSessionAccess(applicationId, sessionId, userId));
      const together = await Promise.all([...asks, ...asks].map(([applicationId, sessionId, userId]) => store().findSessionAccess(applicationId, sessionId, userId)));
      expect(together).toEqual([...alone, ...alone]);
      expect(alone[0]).toEqual({ session, user: await store().findUserById(app.id, user.id) });
      expect(alone[3]).toEqual({ session: strangerSession, user: stranger });
      // For this application, the stranger's session is read, but not its user (checkSession refuses it).
      expect(alone[1]).toEqual({ session: strangerSession, user: null });
      expect(alone[2]).toEqual({ session, user: null });
      const nothing = { session: null, user: null };
      expect([alone[4], alone[5]]).toEqual([nothing, nothing]);
    });

    test('openSession registers a new device and stores the session', async () => {
      const { app, user } = await userOf(store());
      const session = makeSession(app.id, user.id, { hardwareId: 'hw-1' });
      const newDeviceId = randomUUID();
      expect(await store().openSession({ session, device: { hardwareId: 'hw-1', allowed: 1, newDeviceId }, cap: 1, now: T0 }, SYSTEM)).toEqual({ deviceRegistered: true });
      expect(await store().findSession(session.id)).toEqual(session);
      expect((await store().getUserDetails(app.id, user.id))?.devices).toEqual([newDevice({ id: newDeviceId, userId: user.id, hardwareId: 'hw-1', registeredAt: T0 })]);
    });

    test('a new login on the same device replaces its older sessions, even at the cap', async () => {
      const { app, user } = await userOf(store());
      const device = () => ({ hardwareId: 'hw-1', allowed: 1, newDeviceId: randomUUID() });
      const first = makeSession(app.id, user.id, { hardwareId: 'hw-1' });
      await store().openSession({ session: first, device: device(), cap: 1, now: T0 }, SYSTEM);
      const second = makeSession(app.id, user.id, { hardwareId: 'hw-1' });
      expect(await store().openSession({ session: second, device: device(), cap: 1, now: T0 + 10 }, SYSTEM)).toEqual({ deviceRegistered: false });
      expect((await store().findSession(first.id))?.revokedAt).toBe(T0 + 10);
      expect((await store().findSession(second.id))?.revokedAt).toBeNull();
      expect(await devicesOf(store(), app.id, user.id)).toEqual(['hw-1']);
    });

    test('SESSION_LIMIT_REACHED rolls back the device it would have registered', async () => {
      const { app, user } = await userOf(store());
      await store().openSession({ session: makeSession(app.id, user.id, { hardwareId: 'hw-1' }), device: { hardwareId: 'hw-1', allowed: 2, newDeviceId: randomUUID() }, cap: 1, now: T0 }, SYSTEM);
      const refused = makeSession(app.id, user.id, { hardwareId: 'hw-2' });
      await domainError(store().openSession({ session: refused, device: { hardwareId: 'hw-2', allowed: 2, newDeviceId: randomUUID() }, cap: 1, now: T0 }, SYSTEM), 'SESSION_LIMIT_REACHED');
      expect(await store().findSession(refused.id)).toBeNull();
      expect(await devicesOf(store(), app.id, user.id)).toEqual(['hw-1']);
    });

    test('openSession records the address with the session, and a refused login records none', async () => {
      const { app, user } = await userOf(store());
      await store().openSession({ session: makeSession(app.id, user.id), device: null, cap: 1, now: T0, ip: '198.51.100.7' }, SYSTEM);
      expect((await store().findUserById(app.id, user.id))?.lastIp).toBe('198.51.100.7');
      expect(await store().hasSignedInFrom(user.id, '198.51.100.7')).toBe(true);
      // Past the cap: the refusal rolls the address back with the session.
      await domainError(store().openSession({ session: makeSession(app.id, user.id), device: null, cap: 1, now: T0 + 1, ip: '203.0.113.9' }, SYSTEM), 'SESSION_LIMIT_REACHED');
      expect((await store().findUserById(app.id, user.id))?.lastIp).toBe('198.51.100.7');
      expect(await store().hasSignedInFrom(user.id, '203.0.113.9')).toBe(false);
    });

    test('DEVICE_LIMIT_REACHED registers no device and inserts no session', async () => {
      const { app, user } = await userOf(store());
      await store().openSession({ session: makeSession(app.id, user.id, { hardwareId: 'hw-1' }), device: { hardwareId: 'hw-1', allowed: 1, newDeviceId: randomUUID() }, cap: 5, now: T0 }, SYSTEM);
      const refused = makeSession(app.id, user.id, { hardwareId: 'hw-2' });
      await domainError(store().openSession({ session: refused, device: { hardwareId: 'hw-2', allowed: 1, newDeviceId: randomUUID() }, cap: 5, now: T0 }, SYSTEM), 'DEVICE_LIMIT_REACHED');
      expect(await store().findSession(refused.id)).toBeNull();
      expect(await devicesOf(store(), app.id, user.id)).toEqual(['hw-1']);
    });

    test('expired and revoked sessions do not count toward the cap', async () => {
      const { app, user } = await userOf(store());
      const expiring = makeSession(app.id, user.id, { expiresAt: T0 + 1000 });
      await store().openSession({ session: expiring, device: null, cap: 1, now: T0 }, SYSTEM);
      const next = makeSession(app.id, user.id);
      await domainError(store().openSession({ session: next, device: null, cap: 1, now: T0 + 999 }, SYSTEM), 'SESSION_LIMIT_REACHED');
      await store().openSession({ session: next, device: null, cap: 1, now: T0 + 1000 }, SYSTEM);
      await store().revokeSession(next.id, T0 + 2000, SYSTEM);
      await store().openSession({ session: makeSession(app.id, user.id), device: null, cap: 1, now: T0 + 2000 }, SYSTEM);
    });

    test('sessions without a hardware id are never replaced', async () => {
      const { app, user } = await userOf(store());
      const first = makeSession(app.id, user.id);
      await store().openSession({ session: first, device: null, cap: 2, now: T0 }, SYSTEM);
      await store().openSession({ session: makeSession(app.id, user.id), device: null, cap: 2, now: T0 }, SYSTEM);
      expect((await store().findSession(first.id))?.revokedAt).toBeNull();
      await domainError(store().openSession({ session: makeSession(app.id, user.id), device: null, cap: 2, now: T0 }, SYSTEM), 'SESSION_LIMIT_REACHED');
    });

    test('revokeSession keeps the first revocation; findSession of an unknown id is null', async () => {
      const { app, user } = await userOf(store());
      const session = makeSession(app.id, user.id);
      await store().openSession({ session, device: null, cap: 1, now: T0 }, SYSTEM);
      await store().revokeSession(session.id, T0 + 5, SYSTEM);
      await store().revokeSession(session.id, T0 + 9, SYSTEM);
      expect((await store().findSession(session.id))?.revokedAt).toBe(T0 + 5);
      expect(await store().findSession(randomUUID())).toBeNull();
    });

    test('admitLicenseFileDevice re-reads the user as a login does, admits the device under the cap and opens no session', async () => {
      const { app, user } = await userOf(store());
      const admit = (hardwareId: string | null, userId = user.id) =>
        store().admitLicenseFileDevice(
          { applicationId: app.id, userId, device: hardwareId === null ? null : { hardwareId, newDeviceId: randomUUID() }, capDefaults: CAP_DEFAULTS, file: fileOf(), now: T0 },
          SYSTEM,
        );
      await store().updateUserLimits(app.id, user.id, { allowedDevices: 2 });
      expect((await admit('hw-1')).user.membership).toEqual(user.membership);
      await admit('hw-1');
      await admit('hw-2');
      await domainError(admit('hw-3'), 'DEVICE_LIMIT_REACHED');
      expect(await devicesOf(store(), app.id, user.id)).toEqual(['hw-1', 'hw-2']);
      // Without device auth nothing is registered.
      expect((await admit(null)).user.id).toBe(user.id);
      expect(await devicesOf(store(), app.id, user.id)).toEqual(['hw-1', 'hw-2']);

      await store().setUserTimeout(app.id, user.id, { until: T0 + 60_000, reason: null }, T0, SYSTEM);
      await domainError(admit('hw-1'), 'TIMED_OUT');
      await store().setUserTimeout(app.id, user.id, null, T0, SYSTEM);
      const lapsed = await seedUser(store(), app.id, { membership: { activeUntil: T0 - 1, isLifetime: false } });
      await domainError(admit('hw-9', lapsed.id), 'MEMBERSHIP_INACTIVE');
      expect(await devicesOf(store(), app.id, lapsed.id)).toEqual([]);
    });

    test("a license file holds its machine's device slot through a reset until it expires; logins and legacy seats count it too", async () => {
      const { app, user } = await userOf(store());
      await store().updateUserLimits(app.id, user.id, { allowedDevices: 1 });
      const HOUR = 3_600_000;
      const issue = (hardwareId: string, now: number) =>
        store().admitLicenseFileDevice({ applicationId: app.id, userId: user.id, device: { hardwareId, newDeviceId: randomUUID() }, capDefaults: CAP_DEFAULTS, file: fileOf(60), now }, SYSTEM);
      const { expiresAt } = await issue('hw-a', T0);
      expect(expiresAt).toBe(T0 + HOUR);
      await store().resetDevices({ applicationId: app.id, userId: user.id, cooldownHours: 1, now: T0 + 1 }, SYSTEM);
      expect(await devicesOf(store(), app.id, user.id)).toEqual([]);
      // The reset freed no slot: A's file still verifies, so B is refused a file, a login and a legacy seat.
      await domainError(issue('hw-b', T0 + 2), 'DEVICE_LIMIT_REACHED');
      const login = (hardwareId: string, now: number) =>
        store().openSession(
          {
            session: makeSession(app.id, user.id, { hardwareId, createdAt: now, expiresAt: now + HOUR }),
            device: { hardwareId, allowed: 1, newDeviceId: randomUUID() },
            cap: 5,
            now,
          },
          SYSTEM,
        );
      await domainError(login('hw-b', T0 + 3), 'DEVICE_LIMIT_REACHED');
      const legacy = { applicationId: app.id, userId: user.id, hardwareId: 'hw-b', address: '198.51.100.1', cap: 5, newSessionId: randomUUID(), holdMs: 10_000 };
      await domainError(store().holdLegacySession({ ...legacy, device: { hardwareId: 'hw-b', allowed: 1, newDeviceId: randomUUID() }, now: T0 + 4 }, SYSTEM), 'DEVICE_LIMIT_REACHED');
      // A itself registers again.
      await login('hw-a', T0 + 5);
      expect(await devicesOf(store(), app.id, user.id)).toEqual(['hw-a']);
      // Once the device row is gone again and A's file has lapsed, the slot is B's.
      await store().resetDevices({ applicationId: app.id, userId: user.id, cooldownHours: 1, now: T0 + 2 * HOUR }, SYSTEM);
      await issue('hw-b', T0 + 2 * HOUR + 1);
      expect(await devicesOf(store(), app.id, user.id)).toEqual(['hw-b']);
    });

    test('holdLegacySession admits devices: registers under the cap, passes a known device and refuses over the cap', async () => {
      const { app, user } = await userOf(store());
      const admit = (hardwareId: string) =>
        store().holdLegacySession(
          {
            applicationId: app.id,
            userId: user.id,
            hardwareId,
            address: '198.51.100.1',
            device: { hardwareId, allowed: 2, newDeviceId: randomUUID() },
            cap: 100,
            newSessionId: randomUUID(),
            holdMs: 10_000,
            now: T0,
          },
          SYSTEM,
        );
      await admit('hw-1');
      await admit('hw-1');
      await admit('hw-2');
      await domainError(admit('hw-3'), 'DEVICE_LIMIT_REACHED');
      expect(await devicesOf(store(), app.id, user.id)).toEqual(['hw-1', 'hw-2']);
    });

    test('holdLegacySession: each (user, hardware id) holds one seat under the cap until 10 s after its last request, shared with token sessions', async () => {
      const { app, user } = await userOf(store());
      const hold = (hardwareId: string | null, now: number, cap = 2, address = '198.51.100.1') =>
        store().holdLegacySession({ applicationId: app.id, userId: user.id, hardwareId, address, device: null, cap, newSessionId: randomUUID(), holdMs: 10_000, now }, SYSTEM);
      await hold('hw-1', T0);
      await hold('hw-2', T0 + 1);
      // The same machines again: their seats are held on, however often they ask.
      for (let i = 0; i < 5; i++) await hold('hw-1', T0 + 2 + i);
      await hold('hw-2', T0 + 9_000);
      await domainError(hold('hw-3', T0 + 9_001), 'SESSION_LIMIT_REACHED');
      await domainError(hold(null, T0 + 9_001), 'SESSION_LIMIT_REACHED');
      // The same asserted hardware id from another address is another machine: no seat of its own, and hw-1's is not taken over.
      await domainError(hold('hw-1', T0 + 9_001, 2, '203.0.113.7'), 'SESSION_LIMIT_REACHED');
      // A token login counts against the same cap.
      await domainError(
        store().openSession({ session: makeSession(app.id, user.id, { hardwareId: 'hw-9', createdAt: T0 + 9_002 }), device: null, cap: 2, now: T0 + 9_002 }, SYSTEM),
        'SESSION_LIMIT_REACHED',
      );
      // hw-1 last asked at T0 + 6: 10 s later its seat is free; hw-2 still holds until T0 + 19 000.
      await hold('hw-3', T0 + 10_006);
      await domainError(hold('hw-4', T0 + 18_999), 'SESSION_LIMIT_REACHED');
      await hold('hw-4', T0 + 19_000);
      // A legacy seat is no login.
      const logins = (await store().applicationOverview(app.id, T0, { from: T0 - 86_400_000, days: 2 })).loginsByDay;
      expect(logins).toEqual([]);
    });
  });
}
