// Owners, console tokens, applications, and the cascade of deleting an application.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ContractContext } from './store-contract.js';
import { domainError, makeApp, makeLicense, makeOwner, makeResponseKey, makeSession, makeUser, seedApp, seedUser, T0 } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';

export function ownerApplicationContract({ store, readThrottle, test, section }: ContractContext): void {
  section('owners', () => {
    test('createOwner stores an owner found by email and by id', async () => {
      const owner = makeOwner();
      await store().createOwner(owner);
      expect(await store().findOwnerByEmail(owner.email)).toEqual(owner);
      expect(await store().findOwnerById(owner.id)).toEqual(owner);
      expect(await store().findOwnerByEmail('nobody@example.test')).toBeNull();
      expect(await store().findOwnerById(randomUUID())).toBeNull();
    });

    test('listOwners lists every owner, oldest first', async () => {
      expect(await store().listOwners()).toEqual([]);
      const later = makeOwner({ createdAt: T0 + 1000 });
      const first = makeOwner({ createdAt: T0 });
      await store().createOwner(later);
      await store().createOwner(first);
      expect(await store().listOwners()).toEqual([first, later]);
    });

    test('hasOwners is false on an empty database, true once an owner exists', async () => {
      expect(await store().hasOwners()).toBe(false);
      await store().createOwner(makeOwner());
      await store().createOwner(makeOwner());
      expect(await store().hasOwners()).toBe(true);
    });

    test('updateOwnerPasswordHash replaces the hash', async () => {
      const owner = makeOwner();
      await store().createOwner(owner);
      await store().updateOwnerPasswordHash(owner.id, '$argon2id$new');
      expect((await store().findOwnerById(owner.id))?.passwordHash).toBe('$argon2id$new');
    });

    test("sampleSealedSecret is null on an empty database, then one application's sealed key", async () => {
      expect(await store().sampleSealedSecret()).toBeNull();
      const { app } = await seedApp(store());
      expect(await store().sampleSealedSecret()).toBe(app.filesKeySealed);
    });

    test('createOwner refuses a taken email with EMAIL_TAKEN', async () => {
      const owner = makeOwner();
      await store().createOwner(owner);
      await domainError(store().createOwner(makeOwner({ email: owner.email })), 'EMAIL_TAKEN');
    });

    test('console tokens are found by digest and revoked once', async () => {
      const owner = makeOwner();
      await store().createOwner(owner);
      const token = { id: randomUUID(), ownerId: owner.id, digest: `ct:${randomUUID()}`, createdAt: T0, revokedAt: null, expiresAt: null, kind: 'bearer' as const, lastUsedAt: null };
      await store().createConsoleToken(token);
      expect(await store().findConsoleToken(token.digest)).toEqual(token);
      // A browser session's token keeps its expiry.
      const browser = { ...token, id: randomUUID(), digest: `ct:${randomUUID()}`, expiresAt: T0 + 43_200_000, kind: 'cookie' as const };
      await store().createConsoleToken(browser);
      expect(await store().findConsoleToken(browser.digest)).toEqual(browser);
      expect(await store().findConsoleToken('ct:unknown')).toBeNull();
      await store().revokeConsoleToken(token.id, T0 + 1000);
      await store().revokeConsoleToken(token.id, T0 + 2000);
      expect((await store().findConsoleToken(token.digest))?.revokedAt).toBe(T0 + 1000);
    });

    test('touchConsoleToken records the latest use, never moves it back, and leaves a revoked token alone', async () => {
      const owner = makeOwner();
      await store().createOwner(owner);
      const token = { id: randomUUID(), ownerId: owner.id, digest: `ct:${randomUUID()}`, createdAt: T0, revokedAt: null, expiresAt: null, kind: 'bearer' as const, lastUsedAt: null };
      await store().createConsoleToken(token);
      await store().touchConsoleToken(token.id, T0 + 120_000);
      expect((await store().findConsoleToken(token.digest))?.lastUsedAt).toBe(T0 + 120_000);
      // A slower request touching with an earlier instant does not move it back.
      await store().touchConsoleToken(token.id, T0 + 60_000);
      expect((await store().findConsoleToken(token.digest))?.lastUsedAt).toBe(T0 + 120_000);
      await store().revokeConsoleToken(token.id, T0 + 130_000);
      await store().touchConsoleToken(token.id, T0 + 200_000);
      expect((await store().findConsoleToken(token.digest))?.lastUsedAt).toBe(T0 + 120_000);
    });

    test("listConsoleTokens lists the owner's unrevoked tokens oldest first; revokeConsoleTokensOf revokes all but one, or all, of one owner's", async () => {
      const owner = makeOwner();
      const other = makeOwner();
      await store().createOwner(owner);
      await store().createOwner(other);
      const make = (ownerId: string, createdAt: number) => ({
        id: randomUUID(),
        ownerId,
        digest: `ct:${randomUUID()}`,
        createdAt,
        revokedAt: null,
        expiresAt: null,
        kind: 'bearer' as const,
        lastUsedAt: null,
      });
      const [a, b, c] = [make(owner.id, T0 + 2), make(owner.id, T0), make(owner.id, T0 + 1)];
      const theirs = make(other.id, T0);
      for (const token of [a, b, c, theirs]) await store().createConsoleToken(token);
      expect(await store().listConsoleTokens(owner.id)).toEqual([b, c, a]);
      await store().revokeConsoleToken(c.id, T0 + 5);
      expect((await store().listConsoleTokens(owner.id)).map((x) => x.id)).toEqual([b.id, a.id]);
      expect(await store().revokeConsoleTokensOf(owner.id, a.id, T0 + 10)).toBe(1);
      expect((await store().listConsoleTokens(owner.id)).map((x) => x.id)).toEqual([a.id]);
      // The first revocation time stays.
      expect((await store().findConsoleToken(c.digest))?.revokedAt).toBe(T0 + 5);
      expect(await store().revokeConsoleTokensOf(owner.id, null, T0 + 20)).toBe(1);
      expect(await store().listConsoleTokens(owner.id)).toEqual([]);
      expect(await store().listConsoleTokens(other.id)).toEqual([theirs]);
    });
  });

  section('applications', () => {
    test('createApplication stores an application found by id, api key and admin key digest', async () => {
      const { app } = await seedApp(store(), { settings: { ...makeApp('x').settings, deviceAuth: false, sessionTtlSeconds: 900 } });
      expect(await store().findApplication(app.id)).toEqual(app);
      expect(await store().findApplicationByApiKey(app.apiKey)).toEqual(app);
      expect(await store().findApplicationByAdminKeyDigest(app.adminApiKeyDigest)).toEqual(app);
      expect(await store().findApplication(randomUUID())).toBeNull();
      expect(await store().findApplicationByApiKey('gh_app_unknown')).toBeNull();
      expect(await store().findApplicationByAdminKeyDigest('admin:unknown')).toBeNull();
    });

    test("listApplications lists only the owner's applications, oldest first", async () => {
      const owner = makeOwner();
      const other = makeOwner();
      await store().createOwner(owner);
      await store().createOwner(other);
      const newer = makeApp(owner.id, { createdAt: T0 + 5000, name: 'newer' });
      const older = makeApp(owner.id, { createdAt: T0, name: 'older' });
      await store().createApplication(newer);
      await store().createApplication(older);
      await store().createApplication(makeApp(other.id));
      expect((await store().listApplications(owner.id)).map((a) => a.name)).toEqual(['older', 'newer']);
      expect(await store().listApplications(randomUUID())).toEqual([]);
    });

    test('updateApplication applies a patch and returns the updated record', async () => {
      const { app } = await seedApp(store());
      const settings = { ...app.settings, legacyAuth: true, defaultAllowedSessions: 3 };
      const updated = await store().updateApplication(
        app.id,
        {
          name: 'Renamed',
          settings,
          apiSecretDigest: 'secret:rotated',
          adminApiKeyDigest: 'admin:rotated',
        },
        T0,
        SYSTEM,
      );
      const expected = { ...app, name: 'Renamed', settings, apiSecretDigest: 'secret:rotated', adminApiKeyDigest: 'admin:rotated' };
      expect(updated).toEqual(expected);
      expect(await store().findApplication(app.id)).toEqual(expected);
      expect(await store().updateApplication(app.id, { name: 'Only name' }, T0, SYSTEM)).toEqual({ ...expected, name: 'Only name' });
      expect(await store().updateApplication(app.id, {}, T0, SYSTEM)).toEqual({ ...expected, name: 'Only name' });
      expect(await store().updateApplication(randomUUID(), { name: 'x' }, T0, SYSTEM)).toBeNull();
    });

    test('findApplicationByApiKey answers the application as it is now, read after read', async () => {
      // A store may remember an answer (fast/application-reads.ts): every change must show at once.
      const { app } = await seedApp(store());
      expect(await store().findApplicationByApiKey(app.apiKey)).toEqual(app);
      expect(await store().findApplicationByApiKey(app.apiKey)).toEqual(app);
      const rotated = await store().updateApplication(app.id, { apiSecretDigest: 'secret:rotated', settings: { ...app.settings, tokenAuth: false } }, T0, SYSTEM);
      expect(await store().findApplicationByApiKey(app.apiKey)).toEqual(rotated);
      expect(await store().deleteApplication(app.id)).toBe(true);
      expect(await store().findApplicationByApiKey(app.apiKey)).toBeNull();
    });

    test('patchApplication lays the settings given over the stored ones; an invalid result writes nothing', async () => {
      const { app } = await seedApp(store());
      const patched = await store().patchApplication(app.id, { name: 'Renamed', settings: { legacyAuth: true } }, T0, SYSTEM);
      const expected = { ...app, name: 'Renamed', settings: { ...app.settings, legacyAuth: true } };
      expect(patched).toEqual(expected);
      expect(await store().patchApplication(app.id, { settings: { defaultAllowedSessions: 4 } }, T0, SYSTEM)).toEqual({
        ...expected,
        settings: { ...expected.settings, defaultAllowedSessions: 4 },
      });
      await expect(store().patchApplication(app.id, { name: 'Lost', settings: { sessionTtlSeconds: 1 } }, T0, SYSTEM)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      expect((await store().findApplication(app.id))?.name).toBe('Renamed');
      expect(await store().patchApplication(randomUUID(), { settings: {} }, T0, SYSTEM)).toBeNull();
    });

    test('deleteApplication cascades to everything the application owns', async () => {
      const s = store();
      const { app } = await seedApp(s);
      const { app: kept } = await seedApp(s);
      const seed = async (applicationId: string) => {
        const user = await seedUser(s, applicationId);
        const license = makeLicense(applicationId);
        await s.insertLicenses([license], SYSTEM);
        const session = makeSession(applicationId, user.id);
        await s.openSession({ session, device: null, cap: 5, now: T0 }, SYSTEM);
        await s.addBans(applicationId, [{ id: randomUUID(), applicationId, type: 'ip', value: '203.0.113.9', reason: null, createdAt: T0, propagatedFrom: null, expiresAt: null }], T0, SYSTEM);
        await s.putVariable({ applicationId, name: 'motd', value: 'hi', isPublic: true }, T0, SYSTEM);
        const announcement = { id: randomUUID(), applicationId, title: 't', contentHtml: '<p>x</p>', status: 'PUBLISHED' as const, publishFrom: T0, publishUntil: null, createdAt: T0 };
        await s.createAnnouncement(announcement, SYSTEM);
        const attempt = { applicationId, accountKey: `user:${user.usernameKey}`, ip: '203.0.113.9', now: T0 };
        await s.reserveAuthAttempt(attempt, { lockoutThreshold: 10, ipFailureLimit: 100, accountFailureLimit: 1000 });
        return { user, license, session, announcement, attempt };
      };
      const gone = await seed(app.id);
      const stays = await seed(kept.id);

      expect(await s.deleteApplication(app.id)).toBe(true);
      expect(await s.deleteApplication(app.id)).toBe(false);

      expect(await s.findApplication(app.id)).toBeNull();
      expect(await s.findUserById(app.id, gone.user.id)).toBeNull();
      expect(await s.findLicenseById(app.id, gone.license.id)).toBeNull();
      expect(await s.findSession(gone.session.id)).toBeNull();
      expect(await s.listBans(app.id, T0)).toEqual([]);
      expect(await s.listVariables(app.id)).toEqual([]);
      expect(await s.findAnnouncement(app.id, gone.announcement.id)).toBeNull();
      const counters = await readThrottle(app.id, gone.attempt.accountKey, gone.attempt.ip);
      expect(counters).toEqual({ account: { failures: 0, lockedUntil: null, lockouts: 0, inFlight: 0, inFlightUntil: null }, everywhere: null, ip: null });
      expect(await s.findUserByUsernameKey(app.id, gone.user.usernameKey)).toBeNull();

      expect(await s.findUserById(kept.id, stays.user.id)).not.toBeNull();
      expect(await s.findLicenseById(kept.id, stays.license.id)).not.toBeNull();
      expect(await s.findSession(stays.session.id)).not.toBeNull();
      expect(await s.listBans(kept.id, T0)).toHaveLength(1);
      expect(await s.listVariables(kept.id)).toHaveLength(1);
      const keptCounters = await readThrottle(kept.id, stays.attempt.accountKey, stays.attempt.ip);
      expect(keptCounters).toMatchObject({ account: { inFlight: 1 }, everywhere: { failures: 1 }, ip: { failures: 1 } });
    });

    test('rotateResponseSigningKey makes the new key current and the current one previous; dropPrevious removes it', async () => {
      const { app } = await seedApp(store());
      const first = app.signing.response;
      const second = makeResponseKey();
      const rotated = await store().rotateResponseSigningKey(app.id, second, T0, SYSTEM);
      expect(rotated?.signing).toEqual({ ...app.signing, response: second, previousResponse: first });
      expect(await store().findApplication(app.id)).toEqual(rotated);
      // Rotating again drops the oldest key: only one previous key is kept.
      const third = makeResponseKey();
      expect((await store().rotateResponseSigningKey(app.id, third, T0, SYSTEM))?.signing).toMatchObject({ response: third, previousResponse: second });
      const dropped = await store().dropPreviousResponseSigningKey(app.id);
      expect(dropped?.signing).toEqual({ ...app.signing, response: third, previousResponse: null });
      expect(await store().findApplicationByApiKey(app.apiKey)).toEqual(dropped);
      expect((await store().dropPreviousResponseSigningKey(app.id))?.signing.previousResponse).toBeNull();
      expect(await store().rotateResponseSigningKey(randomUUID(), makeResponseKey(), T0, SYSTEM)).toBeNull();
      expect(await store().dropPreviousResponseSigningKey(randomUUID())).toBeNull();
    });

    test('rotateRequestSigningKey keeps the key it replaces with the time it was replaced', async () => {
      const { app } = await seedApp(store());
      const rotated = await store().rotateRequestSigningKey(app.id, 'sealed:second', T0 + 5000, SYSTEM);
      expect(rotated?.signing).toEqual({ ...app.signing, requestSealed: 'sealed:second', previousRequest: { sealed: app.signing.requestSealed, replacedAt: T0 + 5000 } });
      expect(await store().findApplication(app.id)).toEqual(rotated);
      const again = await store().rotateRequestSigningKey(app.id, 'sealed:third', T0 + 9000, SYSTEM);
      expect(again?.signing).toMatchObject({ requestSealed: 'sealed:third', previousRequest: { sealed: 'sealed:second', replacedAt: T0 + 9000 } });
      expect(await store().rotateRequestSigningKey(randomUUID(), 'sealed:x', T0, SYSTEM)).toBeNull();
    });

    test('fillMissingSigningKeys gives an application from before signing its keys once; racing fills agree on the first', async () => {
      const owner = makeOwner();
      await store().createOwner(owner);
      const bare = { response: null, previousResponse: null, requestSealed: null, previousRequest: null };
      const old = makeApp(owner.id, { signing: bare });
      const keyed = makeApp(owner.id);
      await store().createApplication(old);
      await store().createApplication(keyed);
      expect(await store().applicationsWithoutSigningKeys()).toEqual([old.id]);
      const fills = [1, 2, 3].map(() => ({ response: makeResponseKey(), requestSealed: `sealed:${randomUUID()}` }));
      const results = await Promise.all(fills.map((keys) => store().fillMissingSigningKeys(old.id, keys)));
      const stored = await store().findApplication(old.id);
      expect(fills.map((f) => f.response)).toContainEqual(stored?.signing.response);
      expect(stored?.signing.requestSealed).not.toBeNull();
      for (const result of results) expect(result).toEqual(stored);
      expect(await store().applicationsWithoutSigningKeys()).toEqual([]);
      // An application with keys keeps them.
      expect(await store().fillMissingSigningKeys(keyed.id, fills[0]!)).toEqual(keyed);
      expect(await store().fillMissingSigningKeys(randomUUID(), fills[0]!)).toBeNull();
    });

    test('ping answers while the store is open', async () => {
      await store().ping();
    });
  });

  // Users need an application; a user of a missing application is refused by the database.
  section('referential integrity', () => {
    test('signUp into a missing application fails and stores nothing', async () => {
      const user = makeUser(randomUUID());
      await expect(store().signUp({ user, device: null, now: T0 }, SYSTEM)).rejects.toThrow();
      expect(await store().findUserById(user.applicationId, user.id)).toBeNull();
    });
  });
}
