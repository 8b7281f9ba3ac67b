// Licenses of a plan: issued under the plan's lock, redeemed seat by seat (sign-up and activation),
// refused redemptions writing nothing, ban keys for every redeemer, and a seat released.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Store } from '../../src/application/ports/store.js';
import type { LicenseRecord, UserRecord } from '../../src/application/records.js';
import { SYSTEM } from '../../src/application/events/actor.js';
import { createPlan, type NewPlan, patchPlan } from '../../src/domain/plan.js';
import { MINUTE_MS } from '../../src/domain/time.js';
import type { ContractContext } from './store-contract.js';
import { domainError, makeLicense, makeSession, makeUser, seedApp, seedUser, T0 } from './fixtures.js';
import { newDevice } from '../../src/application/new-device.js';

const DAY_MS = 24 * 60 * MINUTE_MS;
const MONTH = 30 * 24 * 60;

async function withPlan(store: Store, input: Partial<NewPlan> = {}) {
  const { app } = await seedApp(store);
  const plan = createPlan({ name: 'Team', kind: 'base', durationMinutes: MONTH, seats: 3, ...input }, randomUUID(), app.id, T0);
  await store.insertPlan(plan);
  const license = makeLicense(app.id, { minutes: null, planId: plan.id, seats: plan.seats });
  await store.insertLicenses([license], SYSTEM);
  return { app, plan, license };
}

const activation = (license: LicenseRecord, userId: string, now = T0) => ({
  applicationId: license.applicationId,
  userId,
  licenseDigest: license.codeDigest,
  adjustmentId: randomUUID(),
  device: null,
  now,
});

/** A sign-up with `license` from machine `hardwareId` (null: none), device auth off: only the holder's device. */
const holderSignUp = (license: LicenseRecord, user: UserRecord, hardwareId: string | null) => ({
  applicationId: license.applicationId,
  licenseDigest: license.codeDigest,
  user,
  device: null,
  holderDevice: hardwareId === null ? null : newDevice({ id: randomUUID(), userId: user.id, hardwareId, registeredAt: T0 }),
  adjustmentId: randomUUID(),
  now: T0,
});

export function planLicenseContract({ store, test, section }: ContractContext): void {
  section('licenses of a plan', () => {
    test("insertLicenses refuses another application's, a missing and an archived plan, writing nothing", async () => {
      const { app, plan } = await withPlan(store());
      const { app: other } = await seedApp(store());
      await domainError(store().insertLicenses([makeLicense(other.id, { planId: plan.id, minutes: null })], SYSTEM), 'PLAN_NOT_FOUND');
      await domainError(store().insertLicenses([makeLicense(app.id, { planId: randomUUID(), minutes: null })], SYSTEM), 'PLAN_NOT_FOUND');
      await store().updatePlan(app.id, plan.id, (p) => patchPlan(p, { archived: true }, T0));
      await domainError(store().insertLicenses([makeLicense(app.id, { planId: plan.id, minutes: null })], SYSTEM), 'PLAN_ARCHIVED');
      expect(await store().listLicenses(other.id)).toEqual([]);
      expect(await store().listLicenses(app.id)).toHaveLength(1);
    });

    test('activateLicense of a base plan sets the plan, counts the redemption and lists the redeemer', async () => {
      const { app, plan, license } = await withPlan(store());
      const user = await seedUser(store(), app.id, { membership: { activeUntil: null, isLifetime: false } });
      const adjustment = await store().activateLicense(activation(license, user.id), SYSTEM);
      expect(adjustment).toMatchObject({ type: 'license', minutes: MONTH, licenseId: license.id, planFrom: null, planTo: plan.id });
      expect(await store().findUserById(app.id, user.id)).toMatchObject({ planId: plan.id, membership: { activeUntil: T0 + 30 * DAY_MS, isLifetime: false } });
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ redemptions: 1, usedAt: T0, usedByUserId: user.id });
      expect(await store().listRedemptions(app.id, license.id)).toEqual([{ userId: user.id, username: user.username, redeemedAt: T0 }]);
      expect(await store().listRedemptions(app.id, randomUUID())).toBeNull();
    });

    test('a refused redemption writes nothing: the same user again, a full code, a banned code', async () => {
      const { app, license } = await withPlan(store(), { seats: 2 });
      const [a, b, c] = [await seedUser(store(), app.id), await seedUser(store(), app.id), await seedUser(store(), app.id)];
      await store().activateLicense(activation(license, a.id), SYSTEM);
      const eventsBefore = (await store().listEvents(app.id, {}, { limit: 1000 })).length;
      const userBefore = await store().findUserById(app.id, a.id);
      await domainError(store().activateLicense(activation(license, a.id, T0 + 1), SYSTEM), 'LICENSE_ALREADY_REDEEMED');
      expect(await store().findUserById(app.id, a.id)).toEqual(userBefore);
      await store().activateLicense(activation(license, b.id), SYSTEM);
      await domainError(store().activateLicense(activation(license, c.id), SYSTEM), 'LICENSE_USED');
      await domainError(
        store().signUpWithLicense({ ...holderSignUp(license, makeUser(app.id, { credentialType: 'license_code' }), 'hw-c'), adjustmentId: randomUUID(), now: T0 }, SYSTEM),
        'LICENSE_USED',
      );
      expect(await store().findUserById(app.id, c.id)).toMatchObject({ planId: null });
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ redemptions: 2 });
      expect(await store().listEvents(app.id, {}, { limit: 1000 })).toHaveLength(eventsBefore + 1);
    });

    test('signUpWithLicense with a plan code makes one user a seat, holding the plan', async () => {
      const { app, plan, license } = await withPlan(store(), { seats: 2 });
      const signUp = () =>
        store().signUpWithLicense(
          {
            ...holderSignUp(license, makeUser(app.id, { credentialType: 'license_code', membership: { activeUntil: null, isLifetime: false } }), `hw-${randomUUID()}`),
            adjustmentId: randomUUID(),
            now: T0,
          },
          SYSTEM,
        );
      const first = await signUp();
      expect(first.user).toMatchObject({ planId: plan.id, licenseId: license.id, membership: { activeUntil: T0 + 30 * DAY_MS } });
      expect(await store().findUserById(app.id, first.user.id)).toMatchObject({ planId: plan.id });
      expect(first.adjustment).toMatchObject({ planFrom: null, planTo: plan.id, userId: first.user.id });
      await signUp();
      await domainError(signUp(), 'LICENSE_USED');
      expect(await store().listRedemptions(app.id, license.id)).toHaveLength(2);
    });

    test('a banned seat code bans every user who redeemed it; a released one no longer', async () => {
      const { app, license } = await withPlan(store());
      const [a, b] = [await seedUser(store(), app.id), await seedUser(store(), app.id)];
      await store().activateLicense(activation(license, a.id), SYSTEM);
      await store().activateLicense(activation(license, b.id), SYSTEM);
      expect(await store().redeemedLicenseIds(app.id, b.id)).toEqual([license.id]);
      await store().addBans(app.id, [{ id: randomUUID(), applicationId: app.id, type: 'license', value: license.id, reason: null, createdAt: T0, propagatedFrom: null, expiresAt: null }], T0, SYSTEM);
      const licenseBans = async (userId: string) => (await store().findMatchingBans(app.id, [{ type: 'user', value: userId }], T0)).filter((ban) => ban.type === 'license').map((ban) => ban.value);
      expect(await licenseBans(a.id)).toEqual([license.id]);
      expect(await licenseBans(b.id)).toEqual([license.id]);
      // a is the license's used_by: its release moves used_by on to b.
      expect(await store().releaseSeat({ applicationId: app.id, licenseId: license.id, userId: a.id, adjustmentId: randomUUID(), now: T0 + 1 }, SYSTEM)).toBe(true);
      expect(await licenseBans(a.id)).toEqual([]);
      expect(await store().redeemedLicenseIds(app.id, a.id)).toEqual([]);
      expect(await licenseBans(b.id)).toEqual([license.id]);
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ redemptions: 1, usedByUserId: b.id, usedAt: T0 });
    });

    test('releaseSeat takes back the time and puts the plan back; a second release finds nothing', async () => {
      const { app, plan, license } = await withPlan(store());
      const basic = createPlan({ name: 'Basic', kind: 'base', durationMinutes: MONTH }, randomUUID(), app.id, T0);
      await store().insertPlan(basic);
      const basicCode = makeLicense(app.id, { minutes: null, planId: basic.id });
      await store().insertLicenses([basicCode], SYSTEM);
      const user = await seedUser(store(), app.id, { membership: { activeUntil: null, isLifetime: false } });
      await store().activateLicense(activation(basicCode, user.id), SYSTEM);
      await store().activateLicense(activation(license, user.id), SYSTEM);
      expect(await store().findUserById(app.id, user.id)).toMatchObject({ planId: plan.id, membership: { activeUntil: T0 + 60 * DAY_MS } });
      const release = () => store().releaseSeat({ applicationId: app.id, licenseId: license.id, userId: user.id, adjustmentId: randomUUID(), now: T0 }, SYSTEM);
      expect(await release()).toBe(true);
      expect(await store().findUserById(app.id, user.id)).toMatchObject({ planId: basic.id, membership: { activeUntil: T0 + 30 * DAY_MS } });
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ redemptions: 0, usedAt: null, usedByUserId: null });
      expect(await release()).toBe(false);
      const details = await store().getUserDetails(app.id, user.id);
      expect(details?.adjustments.filter((a) => a.type === 'bulk')).toEqual([expect.objectContaining({ minutes: -MONTH, licenseId: license.id, planFrom: plan.id, planTo: basic.id })]);
    });

    test('deletePlan: PLAN_IN_USE while a license, a membership or an add-on grant refers to the plan', async () => {
      const { app, plan } = await withPlan(store());
      await domainError(store().deletePlan(app.id, plan.id), 'PLAN_IN_USE');
      // A membership holding a plan no license refers to.
      const held = createPlan({ name: 'Held', kind: 'base', durationMinutes: MONTH }, randomUUID(), app.id, T0);
      await store().insertPlan(held);
      await seedUser(store(), app.id, { planId: held.id });
      await domainError(store().deletePlan(app.id, held.id), 'PLAN_IN_USE');
      // An add-on grant whose license is gone: released, then deleted as unused.
      const addOn = createPlan({ name: 'Export', kind: 'add_on', durationMinutes: MONTH }, randomUUID(), app.id, T0);
      await store().insertPlan(addOn);
      const addOnCode = makeLicense(app.id, { minutes: null, planId: addOn.id });
      await store().insertLicenses([addOnCode], SYSTEM);
      const user = await seedUser(store(), app.id);
      expect((await store().findUserById(app.id, user.id))?.holdsAddOns).toBe(false);
      await store().activateLicense(activation(addOnCode, user.id), SYSTEM);
      // The grant marks its holder, in the same transaction: membership answers read grants only then.
      expect((await store().findUserById(app.id, user.id))?.holdsAddOns).toBe(true);
      await store().releaseSeat({ applicationId: app.id, licenseId: addOnCode.id, userId: user.id, adjustmentId: randomUUID(), now: T0 }, SYSTEM);
      expect(await store().deleteUnusedLicense(app.id, addOnCode.id, T0, SYSTEM)).toBe('deleted');
      await domainError(store().deletePlan(app.id, addOn.id), 'PLAN_IN_USE');
      const fresh = createPlan({ name: 'Unused', kind: 'base', durationMinutes: MONTH }, randomUUID(), app.id, T0);
      await store().insertPlan(fresh);
      expect(await store().deletePlan(app.id, fresh.id)).toBe(true);
    });
  });

  section('logins by a code of several seats', () => {
    const holder = (appId: string) => makeUser(appId, { credentialType: 'license_code', passwordHash: null });

    test('findLicenseHolders reads two holders at most; findLicenseHoldersByDevice the ones with that machine', async () => {
      const { app, license } = await withPlan(store(), { seats: 5 });
      const [a, b, c] = [holder(app.id), holder(app.id), holder(app.id)];
      expect(await store().findLicenseHolders(app.id, license.id)).toEqual([]);
      await store().signUpWithLicense(holderSignUp(license, a, 'hw-a'), SYSTEM);
      expect((await store().findLicenseHolders(app.id, license.id)).map((u) => u.id)).toEqual([a.id]);
      await store().signUpWithLicense(holderSignUp(license, b, 'hw-b'), SYSTEM);
      await store().signUpWithLicense(holderSignUp(license, c, 'hw-c'), SYSTEM);
      const two = await store().findLicenseHolders(app.id, license.id);
      expect(two).toHaveLength(2);
      expect(two.every((u) => [a.id, b.id, c.id].includes(u.id) && u.licenseId === license.id)).toBe(true);
      expect((await store().findLicenseHoldersByDevice(app.id, license.id, 'hw-b')).map((u) => u.id)).toEqual([b.id]);
      expect(await store().findLicenseHoldersByDevice(app.id, license.id, 'hw-b')).toEqual([await store().findUserById(app.id, b.id)]);
      expect(await store().findLicenseHoldersByDevice(app.id, license.id, 'hw-unknown')).toEqual([]);
      const { app: other } = await seedApp(store());
      expect(await store().findLicenseHolders(other.id, license.id)).toEqual([]);
      expect(await store().findLicenseHoldersByDevice(other.id, license.id, 'hw-b')).toEqual([]);
    });

    test('a machine registered to two holders names both: the caller refuses it', async () => {
      const { app, license } = await withPlan(store(), { seats: 5 });
      const [a, b] = [holder(app.id), holder(app.id)];
      await store().signUpWithLicense(holderSignUp(license, a, 'hw-a'), SYSTEM);
      await store().signUpWithLicense(holderSignUp(license, b, 'hw-b'), SYSTEM);
      // A login with device auth may register a second machine to a holder: here b's.
      await store().openSession({ session: makeSession(app.id, a.id, { hardwareId: 'hw-b' }), device: { hardwareId: 'hw-b', allowed: 10, newDeviceId: randomUUID() }, cap: 10, now: T0 }, SYSTEM);
      expect((await store().findLicenseHoldersByDevice(app.id, license.id, 'hw-b')).map((u) => u.id).sort()).toEqual([a.id, b.id].sort());
    });

    test('signUpWithLicense registers the machine of a code of several seats, with or without device auth', async () => {
      const { app, license } = await withPlan(store(), { seats: 3 });
      const a = holder(app.id);
      await store().signUpWithLicense(holderSignUp(license, a, 'hw-a'), SYSTEM);
      expect((await store().getUserDetails(app.id, a.id))?.devices.map((d) => d.hardwareId)).toEqual(['hw-a']);
    });

    test("signUpWithLicense refuses a code of several seats without a machine, or from a holder's machine, writing nothing", async () => {
      const { app, license } = await withPlan(store(), { seats: 3 });
      const a = holder(app.id);
      await store().signUpWithLicense(holderSignUp(license, a, 'hw-a'), SYSTEM);
      const eventsBefore = (await store().listEvents(app.id, {}, { limit: 1000 })).length;
      const [b, c] = [holder(app.id), holder(app.id)];
      await domainError(store().signUpWithLicense(holderSignUp(license, b, null), SYSTEM), 'VALIDATION_FAILED');
      await domainError(store().signUpWithLicense(holderSignUp(license, c, 'hw-a'), SYSTEM), 'LICENSE_ALREADY_REDEEMED');
      expect(await store().findUserById(app.id, b.id)).toBeNull();
      expect(await store().findUserById(app.id, c.id)).toBeNull();
      expect(await store().findLicenseById(app.id, license.id)).toMatchObject({ redemptions: 1, usedByUserId: a.id });
      expect(await store().listEvents(app.id, {}, { limit: 1000 })).toHaveLength(eventsBefore);
    });

    test('a single-seat code of a plan needs no machine and registers none without device auth', async () => {
      const { app, license } = await withPlan(store(), { seats: 1 });
      const a = holder(app.id);
      await store().signUpWithLicense(holderSignUp(license, a, null), SYSTEM);
      expect((await store().findLicenseHolders(app.id, license.id)).map((u) => u.id)).toEqual([a.id]);
      const other = await withPlan(store(), { seats: 1 });
      const b = holder(other.app.id);
      await store().signUpWithLicense(holderSignUp(other.license, b, 'hw-b'), SYSTEM);
      expect((await store().getUserDetails(other.app.id, b.id))?.devices).toEqual([]);
    });
  });
}
