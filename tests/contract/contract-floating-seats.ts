// Floating seats (docs/machines.md, "Floating seats"): openSession counting a floating license's
// live sessions under its row lock, also against a racing connection; borrowSeat and returnSeat;
// the once-a-minute exhaustion notice. Every refusal writes nothing.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { SYSTEM } from '../../src/application/events/actor.js';
import type { BorrowSeatInput } from '../../src/application/ports/floating-seat-store.js';
import type { Store } from '../../src/application/ports/store.js';
import type { LicenseRecord } from '../../src/application/records.js';
import { createPlan, type NewPlan } from '../../src/domain/plan.js';
import { MINUTE_MS } from '../../src/domain/time.js';
import type { ContractContext } from './store-contract.js';
import { CAP_DEFAULTS, domainError, makeLicense, makeSession, seedApp, seedUser, T0, tally } from './fixtures.js';

const LEASE_MS = 10 * MINUTE_MS;

async function floatingLicense(store: Store, input: Partial<NewPlan> = {}) {
  const { app } = await seedApp(store);
  const plan = createPlan({ name: 'Floating', kind: 'base', durationMinutes: 30 * 24 * 60, seats: 2, floating: true, maxBorrowMinutes: 60, ...input }, randomUUID(), app.id, T0);
  await store.insertPlan(plan);
  const license = makeLicense(app.id, { minutes: null, planId: plan.id, seats: plan.seats });
  await store.insertLicenses([license], SYSTEM);
  return { app, plan, license };
}

/** A user holding a redemption of the license. */
async function holder(store: Store, license: LicenseRecord) {
  const user = await seedUser(store, license.applicationId, { membership: { activeUntil: null, isLifetime: false } });
  await store.activateLicense({ applicationId: license.applicationId, userId: user.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
  return user;
}

const login = (store: Store, applicationId: string, userId: string, hardwareId: string, now = T0) => {
  const session = makeSession(applicationId, userId, { hardwareId, createdAt: now, expiresAt: now + 60 * MINUTE_MS });
  return { session, opened: store.openSession({ session, device: null, cap: 5, now, floatingLease: now + LEASE_MS }, SYSTEM) };
};

const borrowOf = (applicationId: string, userId: string, hardwareId: string, over: Partial<BorrowSeatInput> = {}): BorrowSeatInput => ({
  applicationId,
  userId,
  hardwareId,
  newDeviceId: null,
  capDefaults: CAP_DEFAULTS,
  minutes: 30,
  borrowId: randomUUID(),
  fileId: randomUUID(),
  now: T0,
  ...over,
});

const eventCount = async (store: Store, applicationId: string, action?: string) => (await store.listEvents(applicationId, action === undefined ? {} : { action }, { limit: 1000 })).length;

export function floatingSeatContract({ store, connect, test, section }: ContractContext): void {
  section('floating seats', () => {
    test('openSession takes a seat with the lease, refuses past the seats writing nothing, and admits once a lease lapses', async () => {
      const { app, license } = await floatingLicense(store());
      const [a, b, c] = [await holder(store(), license), await holder(store(), license), await holder(store(), license)];
      const first = login(store(), app.id, a.id, 'hw-a');
      await first.opened;
      expect(await store().findSession(first.session.id)).toMatchObject({ floatingLicenseId: license.id, leaseExpiresAt: T0 + LEASE_MS });
      await login(store(), app.id, b.id, 'hw-b').opened;
      const before = await eventCount(store(), app.id);
      const refused = login(store(), app.id, c.id, 'hw-c');
      const e = await domainError(refused.opened, 'SEATS_EXHAUSTED');
      expect(e.details.retryAfterSeconds).toBe(LEASE_MS / 1000);
      expect(await store().findSession(refused.session.id)).toBeNull();
      expect(await eventCount(store(), app.id)).toBe(before);
      // The same machine again replaces its session: no new seat.
      await login(store(), app.id, a.id, 'hw-a', T0 + 1).opened;
      expect(await store().findSession(first.session.id)).toMatchObject({ revokedAt: T0 + 1 });
      // b's lease lapses (a's was renewed by its new login).
      await login(store(), app.id, c.id, 'hw-c', T0 + LEASE_MS).opened;
    });

    test('a plain (not floating) plan and a user without a plan take no seat', async () => {
      const { app, license } = await floatingLicense(store(), { floating: false, seats: 1 });
      const user = await holder(store(), license);
      const plain = login(store(), app.id, user.id, 'hw-a');
      await plain.opened;
      expect(await store().findSession(plain.session.id)).toMatchObject({ floatingLicenseId: null, leaseExpiresAt: null });
    });

    test('parallel logins over two connections never pass the seats', async () => {
      const { app, license } = await floatingLicense(store(), { seats: 3 });
      const peer = await connect();
      const users = [];
      for (let i = 0; i < 10; i++) users.push(await holder(store(), license));
      const result = await tally(users.map((u, i) => login(i % 2 === 0 ? store() : peer, app.id, u.id, `hw-${i}`).opened));
      expect(result).toEqual({ fulfilled: 3, codes: { SEATS_EXHAUSTED: 7 } });
    });

    test('borrowSeat holds the seat past the session, records the file and seat.borrowed; returnSeat frees it', async () => {
      const { app, license } = await floatingLicense(store(), { seats: 1 });
      const [a, b] = [await holder(store(), license), await holder(store(), license)];
      await login(store(), app.id, a.id, 'hw-a').opened;
      const borrowed = await store().borrowSeat(borrowOf(app.id, a.id, 'hw-a'), SYSTEM);
      expect(borrowed.expiresAt).toBe(T0 + 30 * MINUTE_MS);
      expect(await eventCount(store(), app.id, 'seat.borrowed')).toBe(1);
      expect(await eventCount(store(), app.id, 'license_file.issued')).toBe(1);
      await domainError(login(store(), app.id, b.id, 'hw-b', T0 + LEASE_MS).opened, 'SEATS_EXHAUSTED');
      expect(await store().returnSeat({ applicationId: app.id, userId: a.id, hardwareId: 'hw-a', now: T0 + LEASE_MS }, SYSTEM)).toBe(true);
      expect(await store().returnSeat({ applicationId: app.id, userId: a.id, hardwareId: 'hw-a', now: T0 + LEASE_MS }, SYSTEM)).toBe(false);
      expect(await eventCount(store(), app.id, 'seat.returned')).toBe(1);
      await login(store(), app.id, b.id, 'hw-b', T0 + LEASE_MS).opened;
    });

    test('a refused borrow rolls back: no seat, no file, no event', async () => {
      const { app, license } = await floatingLicense(store(), { seats: 1 });
      const [a, b] = [await holder(store(), license), await holder(store(), license)];
      await login(store(), app.id, a.id, 'hw-a').opened;
      const before = await eventCount(store(), app.id);
      // The machine was admitted before the seat was refused: its device goes with the rollback.
      await domainError(
        store().borrowSeat(borrowOf(app.id, b.id, 'hw-b', { newDeviceId: randomUUID(), capDefaults: { defaultAllowedDevices: 5, defaultAllowedSessions: 1 } }), SYSTEM),
        'SEATS_EXHAUSTED',
      );
      expect((await store().getUserDetails(app.id, b.id))?.devices).toEqual([]);
      await domainError(store().borrowSeat(borrowOf(app.id, a.id, 'hw-a', { minutes: 61 }), SYSTEM), 'VALIDATION_FAILED');
      expect(await eventCount(store(), app.id)).toBe(before);
      expect(await store().returnSeat({ applicationId: app.id, userId: b.id, hardwareId: 'hw-b', now: T0 }, SYSTEM)).toBe(false);
      const { app: none, license: noBorrow } = await floatingLicense(store(), { maxBorrowMinutes: 0 });
      const c = await holder(store(), noBorrow);
      await domainError(store().borrowSeat(borrowOf(none.id, c.id, 'hw-c'), SYSTEM), 'BORROWING_NOT_ALLOWED');
    });

    test('recordSeatsExhausted records seat.exhausted at most once a minute per license, also from two connections', async () => {
      const { app, license } = await floatingLicense(store(), { seats: 1 });
      const a = await holder(store(), license);
      const peer = await connect();
      const notice = (s: Store, now: number) => s.recordSeatsExhausted({ applicationId: app.id, userId: a.id, hardwareId: 'hw-a', now }, SYSTEM);
      await Promise.all([notice(store(), T0), notice(peer, T0), notice(store(), T0), notice(peer, T0)]);
      await notice(peer, T0 + MINUTE_MS - 1);
      expect(await eventCount(store(), app.id, 'seat.exhausted')).toBe(1);
      await notice(store(), T0 + MINUTE_MS);
      expect(await eventCount(store(), app.id, 'seat.exhausted')).toBe(2);
      expect((await store().findLicenseById(app.id, license.id))?.seatExhaustedAt).toBe(T0 + MINUTE_MS);
    });
  });
}
