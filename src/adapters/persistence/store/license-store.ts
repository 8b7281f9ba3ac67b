// Licenses, and redeeming them (for a new license-code user or an existing user) (docs/architecture.md, "Persistence notes").
import { and, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import type { LicenseStore } from '../../../application/ports/license-store.js';
import type { ActivateLicenseInput, RedemptionOutcome, UserStore } from '../../../application/ports/user-store.js';
import type { Actor } from '../../../application/events/actor.js';
import type { AdjustmentRecord, LicenseRecord, UserRecord } from '../../../application/records.js';
import { DomainError, isDomainError } from '../../../domain/errors.js';
import { assertRedeemable, licenseRefusal } from '../../../domain/license.js';
import { applyLicense, emptyMembership, type Membership } from '../../../domain/membership.js';
import type { Instant } from '../../../domain/time.js';
import { chunks, type Db, type Dialect, firstRow, listOrder, ofApplication } from '../dialect.js';
import type { Lookups } from './lookups.js';
import { membershipColumns } from '../row-mappers.js';
import { admit, findByDigest, findUser, insertUser } from './writes.js';
import type { RecordEvents } from './event-log.js';
import { deviceRegistered, licenseActivated, licenseDeleted, licensesCreated, userCreated } from '../../../application/events/event-facts.js';
import type { EventDraft } from '../../../application/events/event-draft.js';
import { retryingWhileMoved } from './counter-swap.js';
import { inAddressLane, passwordThenCodeWithin } from './throttle-store.js';
import { decidePlanRedemption, seatFor, writeSeat } from './plan-redemption.js';
import { lockIssuablePlan, releaseSeatIn, signUpWithPlan } from './seat-writes.js';

/** Marks a license used. The row lock already excludes other redemptions; the conditions on the
 * UPDATE keep the single use even without it. */
async function markUsed(d: Dialect, tx: Db, licenseId: string, userId: string, now: Instant): Promise<boolean> {
  const { licenses } = d.t;
  const unusedAndUnbanned = and(eq(licenses.id, licenseId), isNull(licenses.usedAt), eq(licenses.banned, false));
  const marked = await tx.update(licenses).set({ usedAt: now, usedByUserId: userId, redemptions: 1 }).where(unusedAndUnbanned).returning({ id: licenses.id });
  return marked.length === 1;
}

/** `membership` with `license` redeemed on it for `userId`, and the adjustment that records it. */
function redeem(license: LicenseRecord, membership: Membership, input: { applicationId: string; now: Instant; adjustmentId: string }, userId: string) {
  const applied = applyLicense(membership, { licenseId: license.id, minutes: license.minutes }, input.now, input.adjustmentId);
  const adjustment: AdjustmentRecord = { ...applied.adjustment, applicationId: input.applicationId, userId, planFrom: null, planTo: null };
  return { membership: applied.membership, adjustment };
}

/** Redeems a license for an existing user inside `tx` (UserStore.activateLicense). */
async function redeemInto(d: Dialect, tx: Db, recordEvents: RecordEvents, input: ActivateLicenseInput, actor: Actor): Promise<AdjustmentRecord> {
  const { adjustments, users } = d.t;
  // The user first, then the license: always in this order, so redemptions cannot deadlock.
  const user = await findUser(d, tx, input.applicationId, input.userId, true);
  if (user === null) throw new DomainError('USER_NOT_FOUND', 'no such user');
  const license = await findByDigest(d, tx, input.applicationId, input.licenseDigest, true);
  if (license !== null && license.planId !== null) return redeemPlanInto(d, tx, recordEvents, input, user, license, actor);
  assertRedeemable(license, 'activation');
  if (!(await markUsed(d, tx, license.id, user.id, input.now))) throw licenseRefusal('used', 'activation');
  const drafts = input.device === null ? [] : await admit(d, tx, user, input.device, input.now);
  const { membership, adjustment } = redeem(license, user.membership, input, user.id);
  await tx.update(users).set(membershipColumns(membership)).where(eq(users.id, user.id));
  await tx.insert(adjustments).values(adjustment);
  drafts.push(licenseActivated(license, { ...user, membership }, adjustment, input.now));
  await recordEvents(tx, actor, drafts, input.now);
  return adjustment;
}

/** redeemInto for a plan's license: a seat is taken, and the plan applied (store/plan-redemption.ts). */
async function redeemPlanInto(d: Dialect, tx: Db, recordEvents: RecordEvents, input: ActivateLicenseInput, user: UserRecord, license: LicenseRecord, actor: Actor): Promise<AdjustmentRecord> {
  const { adjustments, users } = d.t;
  const plan = await seatFor(d, tx, license, user.id, 'activation');
  const drafts = input.device === null ? [] : await admit(d, tx, user, input.device, input.now);
  const redeemed = await decidePlanRedemption(d, tx, plan, license, user, input.now, input.adjustmentId);
  // A base plan changes the membership; an add-on's grant is written with the seat.
  if (redeemed.grant === null) {
    const membership = { ...membershipColumns(redeemed.user.membership), planId: redeemed.user.planId };
    await tx.update(users).set(membership).where(eq(users.id, user.id));
  }
  await tx.insert(adjustments).values(redeemed.adjustment);
  const seat = await writeSeat(d, tx, plan, license, redeemed, input.now);
  drafts.push(licenseActivated(seat.license, redeemed.user, redeemed.adjustment, input.now), ...seat.drafts);
  await recordEvents(tx, actor, drafts, input.now);
  return redeemed.adjustment;
}

type Redemption = Pick<UserStore, 'signUpWithLicense' | 'activateLicense' | 'redeemWithTurns' | 'redeemedLicenseIds'>;

export function licenseStore(d: Dialect, reads: Lookups, recordEvents: RecordEvents): LicenseStore & Redemption {
  const { db } = d;
  const { adjustments, devices, licenses } = d.t;
  const { oldestFirst } = listOrder(d);
  const redeemFor = (tx: Db, input: ActivateLicenseInput, actor: Actor) => redeemInto(d, tx, recordEvents, input, actor);
  return {
    async insertLicenses(batch, actor) {
      if (batch.length === 0) return;
      await d.transaction(async (tx) => {
        // Under the plan's lock: a plan being archived or deleted meanwhile gets no new licenses.
        const planId = batch[0]!.planId;
        if (planId !== null) await lockIssuablePlan(d, tx, batch[0]!.applicationId, planId);
        for (const part of chunks(batch)) await tx.insert(licenses).values(part);
        // One event for the batch, at the instant it was issued.
        await recordEvents(tx, actor, [licensesCreated(batch)], batch[0]!.createdAt);
      });
    },
    async listLicenses(applicationId, status) {
      const byStatus = status === 'used' ? isNotNull(licenses.usedAt) : status === 'unused' ? isNull(licenses.usedAt) : undefined;
      const listed = and(eq(licenses.applicationId, applicationId), byStatus);
      return db.select().from(licenses).where(listed).orderBy(oldestFirst(licenses.createdAt, licenses.id));
    },
    findLicenseByDigest: reads.findLicenseByDigest,
    async findLicenseById(applicationId, id) {
      const mine = ofApplication(licenses, applicationId, id);
      return firstRow(d, db.select().from(licenses).where(mine));
    },
    async sealedCodesOf(applicationId, ids) {
      const codes = new Map<string, string>();
      for (const part of chunks(ids)) {
        const theLicenses = and(eq(licenses.applicationId, applicationId), inArray(licenses.id, part));
        const rows = await db.select({ id: licenses.id, codeSealed: licenses.codeSealed }).from(licenses).where(theLicenses);
        for (const r of rows) codes.set(r.id, r.codeSealed);
      }
      return codes;
    },
    redeemedLicenseIds: reads.redeemedLicenseIds,
    async deleteUnusedLicense(applicationId, id, now, actor) {
      return d.transaction(async (tx) => {
        // Locked, so a redemption cannot mark it used between this check and the delete.
        const theLicense = ofApplication(licenses, applicationId, id);
        const [row] = await d.locked(tx.select().from(licenses).where(theLicense));
        if (!row) return 'missing' as const;
        if (row.usedAt !== null) return 'used' as const;
        await tx.delete(licenses).where(eq(licenses.id, id));
        await recordEvents(tx, actor, [licenseDeleted(row)], now);
        return 'deleted' as const;
      });
    },
    async signUpWithLicense(input, actor) {
      return d.transaction(async (tx) => {
        const license = await findByDigest(d, tx, input.applicationId, input.licenseDigest, true);
        if (license !== null && license.planId !== null) return signUpWithPlan(d, tx, recordEvents, input, license, actor);
        assertRedeemable(license, 'sign_up');
        const { membership, adjustment } = redeem(license, emptyMembership, input, input.user.id);
        const user = { ...input.user, applicationId: input.applicationId, membership, licenseId: license.id };
        await insertUser(d, tx, user);
        if (!(await markUsed(d, tx, license.id, user.id, input.now))) throw licenseRefusal('used', 'sign_up');
        await tx.insert(adjustments).values(adjustment);
        if (input.device !== null) await tx.insert(devices).values(input.device);
        const drafts: EventDraft[] = [userCreated(user, 'sign_up_with_license_code', input.now), licenseActivated(license, user, adjustment, input.now)];
        if (input.device !== null) drafts.push(deviceRegistered(input.applicationId, user, input.device));
        await recordEvents(tx, actor, drafts, input.now);
        return { user, adjustment };
      });
    },
    async listRedemptions(applicationId, licenseId) {
      const { licenseRedemptions: r, users } = d.t;
      const found = await db
        .select({ id: licenses.id })
        .from(licenses)
        .where(ofApplication(licenses, applicationId, licenseId));
      if (found.length === 0) return null;
      const theirs = and(eq(r.applicationId, applicationId), eq(r.licenseId, licenseId));
      return db
        .select({ userId: r.userId, username: users.username, redeemedAt: r.redeemedAt })
        .from(r)
        .leftJoin(users, eq(users.id, r.userId))
        .where(theirs)
        .orderBy(oldestFirst(r.redeemedAt, r.userId));
    },
    releaseSeat: (input, actor) => d.transaction((tx) => releaseSeatIn(d, tx, recordEvents, input, actor)),
    activateLicense: (input, actor) => d.transaction((tx) => redeemFor(tx, input, actor)),
    async redeemWithTurns({ password, code, redemption }, actor) {
      const step = (redeeming: ActivateLicenseInput | null) =>
        inAddressLane(d, password.attempt, () =>
          retryingWhileMoved(() =>
            d.transaction(async (tx): Promise<RedemptionOutcome> => {
              const turns = await passwordThenCodeWithin(d, tx, password, code);
              if (turns.kind !== 'settled') return turns.kind === 'busy' ? { kind: 'busy' } : { kind: 'refused', error: turns.error };
              if (redeeming === null) return { kind: 'settled', lockedUntil: turns.lockedUntil };
              return { kind: 'redeemed', adjustment: await redeemFor(tx, redeeming, actor) };
            }),
          ),
        );
      try {
        return await step(redemption);
      } catch (e) {
        // Refused: the turns are settled as they would be before the redemption was tried.
        if (redemption === null || !isDomainError(e)) throw e;
        await step(null);
        throw e;
      }
    },
  };
}
