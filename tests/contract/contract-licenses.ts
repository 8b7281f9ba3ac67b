// Licenses: storing, listing, deleting, and redeeming them (sign-up with a code, activation).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Store } from '../../src/application/ports/store.js';
import type { ContractContext } from './store-contract.js';
import { domainError, HOUR_MS, makeLicense, makeUser, seedApp, seedUser, T0, noPlansOf } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';
import { newDevice } from '../../src/application/new-device.js';

const MIN = 60_000;

async function licensed(store: Store, minutes: number | null = 60, banned = false) {
  const { app } = await seedApp(store);
  const license = makeLicense(app.id, { minutes, banned });
  await store.insertLicenses([license], SYSTEM);
  return { app, license };
}

export function licenseContract({ store, test, section }: ContractContext): void {
  section('licenses', () => {
    test('insertLicenses stores licenses found by digest and id, scoped to their application', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const a = makeLicense(app.id, { note: 'for Alice', minutes: null });
      const b = makeLicense(app.id);
      await store().insertLicenses([a, b], SYSTEM);
      await store().insertLicenses([], SYSTEM);
      expect(await store().findLicenseByDigest(app.id, a.codeDigest)).toEqual(a);
      expect(await store().findLicenseById(app.id, b.id)).toEqual(b);
      expect(await store().findLicenseByDigest(other.id, a.codeDigest)).toBeNull();
      expect(await store().findLicenseById(other.id, b.id)).toBeNull();
    });

    test('sealedCodesOf maps the ids that are licenses of the application to their sealed codes, and no others', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const a = makeLicense(app.id);
      const b = makeLicense(app.id);
      const foreign = makeLicense(other.id);
      await store().insertLicenses([a, b], SYSTEM);
      await store().insertLicenses([foreign], SYSTEM);
      const codes = await store().sealedCodesOf(app.id, [a.id, foreign.id, randomUUID(), 'not-an-id']);
      expect(codes).toEqual(new Map([[a.id, a.codeSealed]]));
      expect(await store().sealedCodesOf(app.id, [])).toEqual(new Map());
    });

    test('insertLicenses rejects a batch with a taken digest as a whole', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const existing = makeLicense(other.id);
      await store().insertLicenses([existing], SYSTEM);
      const fresh = makeLicense(app.id);
      // The digest is unique across the service, not only within one application.
      await expect(store().insertLicenses([fresh, makeLicense(app.id, { codeDigest: existing.codeDigest })], SYSTEM)).rejects.toThrow();
      const twin = makeLicense(app.id);
      await expect(store().insertLicenses([twin, { ...twin, id: randomUUID() }], SYSTEM)).rejects.toThrow();
      expect(await store().listLicenses(app.id)).toEqual([]);
    });

    test('listLicenses lists oldest first and filters by used or unused', async () => {
      const { app, license: used } = await licensed(store());
      const later = makeLicense(app.id, { createdAt: T0 + 10 * MIN });
      const earlier = makeLicense(app.id, { createdAt: T0 - 10 * MIN });
      await store().insertLicenses([later, earlier], SYSTEM);
      const user = await seedUser(store(), app.id);
      await store().activateLicense({ applicationId: app.id, userId: user.id, licenseDigest: used.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
      expect((await store().listLicenses(app.id)).map((l) => l.id)).toEqual([earlier.id, used.id, later.id]);
      expect((await store().listLicenses(app.id, 'used')).map((l) => l.id)).toEqual([used.id]);
      expect((await store().listLicenses(app.id, 'unused')).map((l) => l.id)).toEqual([earlier.id, later.id]);
    });

    test('deleteUnusedLicense deletes an unused license, keeps a used one, reports a missing one', async () => {
      const { app, license } = await licensed(store());
      const unused = makeLicense(app.id);
      await store().insertLicenses([unused], SYSTEM);
      const user = await seedUser(store(), app.id);
      await store().activateLicense({ applicationId: app.id, userId: user.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
      expect(await store().deleteUnusedLicense(app.id, unused.id, T0, SYSTEM)).toBe('deleted');
      expect(await store().findLicenseById(app.id, unused.id)).toBeNull();
      expect(await store().deleteUnusedLicense(app.id, license.id, T0, SYSTEM)).toBe('used');
      expect(await store().findLicenseById(app.id, license.id)).not.toBeNull();
      expect(await store().deleteUnusedLicense(app.id, randomUUID(), T0, SYSTEM)).toBe('missing');
      const { app: other } = await seedApp(store());
      expect(await store().deleteUnusedLicense(other.id, license.id, T0, SYSTEM)).toBe('missing');
    });
  });

  section('signUpWithLicense', () => {
    test('creates the user with the license applied, marks it used and records the adjustment', async () => {
      const { app, license } = await licensed(store(), 90);
      const user = makeUser(app.id, { credentialType: 'license_code', passwordHash: null });
      const device = newDevice({ id: randomUUID(), userId: user.id, hardwareId: 'hw-1', registeredAt: T0 });
      const adjustmentId = randomUUID();
      const result = await store().signUpWithLicense({ applicationId: app.id, licenseDigest: license.codeDigest, user, device, holderDevice: device, adjustmentId, now: T0 }, SYSTEM);
      const expectedUser = { ...user, licenseId: license.id, membership: { activeUntil: T0 + 90 * MIN, isLifetime: false } };
      expect(result.user).toEqual(expectedUser);
      expect(result.adjustment).toEqual({
        id: adjustmentId,
        applicationId: app.id,
        userId: user.id,
        type: 'license',
        occurredAt: T0,
        minutes: 90,
        grantsLifetime: false,
        revokesLifetime: false,
        licenseId: license.id,
        reason: null,
        planFrom: null,
        planTo: null,
      });
      expect(await store().findLicenseHolders(app.id, license.id)).toEqual([expectedUser]);
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ usedAt: T0, usedByUserId: user.id, redemptions: 1 });
      expect(await store().getUserDetails(app.id, user.id)).toEqual({ user: expectedUser, devices: [device], adjustments: [result.adjustment], ...noPlansOf(app) });
    });

    test('a lifetime license makes a lifetime membership', async () => {
      const { app, license } = await licensed(store(), null);
      const user = makeUser(app.id, { credentialType: 'license_code', passwordHash: null });
      const { user: created, adjustment } = await store().signUpWithLicense(
        { applicationId: app.id, licenseDigest: license.codeDigest, user, device: null, holderDevice: null, adjustmentId: randomUUID(), now: T0 },
        SYSTEM,
      );
      expect(created.membership).toEqual({ activeUntil: null, isLifetime: true });
      expect(adjustment).toMatchObject({ minutes: null, grantsLifetime: true });
    });

    test('an unknown code (or one of another application) is LICENSE_INVALID', async () => {
      const { license } = await licensed(store());
      const { app: other } = await seedApp(store());
      const user = makeUser(other.id);
      await domainError(
        store().signUpWithLicense({ applicationId: other.id, licenseDigest: license.codeDigest, user, device: null, holderDevice: null, adjustmentId: randomUUID(), now: T0 }, SYSTEM),
        'LICENSE_INVALID',
      );
      await domainError(
        store().signUpWithLicense({ applicationId: other.id, licenseDigest: 'lic:unknown', user, device: null, holderDevice: null, adjustmentId: randomUUID(), now: T0 }, SYSTEM),
        'LICENSE_INVALID',
      );
      expect(await store().findUserById(other.id, user.id)).toBeNull();
    });

    test('a used license is LICENSE_USED and creates no user', async () => {
      const { app, license } = await licensed(store());
      const first = makeUser(app.id);
      await store().signUpWithLicense({ applicationId: app.id, licenseDigest: license.codeDigest, user: first, device: null, holderDevice: null, adjustmentId: randomUUID(), now: T0 }, SYSTEM);
      const second = makeUser(app.id);
      const device = newDevice({ id: randomUUID(), userId: second.id, hardwareId: 'hw-2', registeredAt: T0 });
      await domainError(
        store().signUpWithLicense({ applicationId: app.id, licenseDigest: license.codeDigest, user: second, device, holderDevice: device, adjustmentId: randomUUID(), now: T0 }, SYSTEM),
        'LICENSE_USED',
      );
      expect(await store().findUserById(app.id, second.id)).toBeNull();
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ usedByUserId: first.id });
    });

    test('a banned license is BANNED, even when unused, and creates no user', async () => {
      const { app, license } = await licensed(store(), 60, true);
      const user = makeUser(app.id);
      await domainError(
        store().signUpWithLicense({ applicationId: app.id, licenseDigest: license.codeDigest, user, device: null, holderDevice: null, adjustmentId: randomUUID(), now: T0 }, SYSTEM),
        'BANNED',
      );
      expect(await store().findUserById(app.id, user.id)).toBeNull();
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ usedAt: null });
    });

    test('a taken username is USERNAME_TAKEN and leaves the license unused', async () => {
      const { app, license } = await licensed(store());
      const taken = await seedUser(store(), app.id);
      const user = makeUser(app.id, { username: taken.username.toUpperCase(), usernameKey: taken.usernameKey });
      await domainError(
        store().signUpWithLicense({ applicationId: app.id, licenseDigest: license.codeDigest, user, device: null, holderDevice: null, adjustmentId: randomUUID(), now: T0 }, SYSTEM),
        'USERNAME_TAKEN',
      );
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ usedAt: null, usedByUserId: null });
      expect((await store().getUserDetails(app.id, taken.id))?.adjustments).toEqual([]);
    });
  });

  section('activateLicense', () => {
    test('adds the minutes to max(now, activeUntil), marks the license used and records the adjustment', async () => {
      const { app, license } = await licensed(store(), 120);
      const user = await seedUser(store(), app.id, { membership: { activeUntil: T0 + HOUR_MS, isLifetime: false } });
      const adjustmentId = randomUUID();
      const adjustment = await store().activateLicense({ applicationId: app.id, userId: user.id, licenseDigest: license.codeDigest, adjustmentId, device: null, now: T0 }, SYSTEM);
      expect(adjustment).toEqual({
        id: adjustmentId,
        applicationId: app.id,
        userId: user.id,
        type: 'license',
        occurredAt: T0,
        minutes: 120,
        grantsLifetime: false,
        revokesLifetime: false,
        licenseId: license.id,
        reason: null,
        planFrom: null,
        planTo: null,
      });
      const details = await store().getUserDetails(app.id, user.id);
      expect(details?.user.membership).toEqual({ activeUntil: T0 + HOUR_MS + 120 * MIN, isLifetime: false });
      expect(details?.adjustments).toEqual([adjustment]);
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ usedAt: T0, usedByUserId: user.id, redemptions: 1 });

      // An expired membership restarts from now: time never stacks on the past.
      const expired = await seedUser(store(), app.id, { membership: { activeUntil: T0 - HOUR_MS, isLifetime: false } });
      const next = makeLicense(app.id, { minutes: 30 });
      await store().insertLicenses([next], SYSTEM);
      await store().activateLicense({ applicationId: app.id, userId: expired.id, licenseDigest: next.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
      expect((await store().findUserById(app.id, expired.id))?.membership.activeUntil).toBe(T0 + 30 * MIN);
    });

    test('a used license is LICENSE_USED, a missing one LICENSE_INVALID, both credential refusals, and nothing changes', async () => {
      const { app, license } = await licensed(store());
      const first = await seedUser(store(), app.id);
      const second = await seedUser(store(), app.id);
      await store().activateLicense({ applicationId: app.id, userId: first.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
      await domainError(
        store().activateLicense({ applicationId: app.id, userId: second.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM),
        'LICENSE_USED',
      );
      await domainError(
        store().activateLicense({ applicationId: app.id, userId: second.id, licenseDigest: 'lic:unknown', adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM),
        'LICENSE_INVALID',
      );
      const details = await store().getUserDetails(app.id, second.id);
      expect(details?.user.membership).toEqual(second.membership);
      expect(details?.adjustments).toEqual([]);
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ usedByUserId: first.id });
    });

    test('a banned license is BANNED, leaves the membership unchanged and writes no adjustment', async () => {
      const { app, license } = await licensed(store(), 60, true);
      const user = await seedUser(store(), app.id);
      await domainError(store().activateLicense({ applicationId: app.id, userId: user.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM), 'BANNED');
      const details = await store().getUserDetails(app.id, user.id);
      expect(details?.user.membership).toEqual(user.membership);
      expect(details?.adjustments).toEqual([]);
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ usedAt: null, banned: true });
    });
  });
}
