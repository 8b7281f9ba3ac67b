// The license store's writes about plans' codes: issuing them under the plan's lock, signing up with
// one, and releasing a seat, each in the caller's transaction (docs/plans.md, "Seats").
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Actor } from '../../../application/events/actor.js';
import type { EventDraft } from '../../../application/events/event-draft.js';
import { deviceRegistered, licenseActivated, membershipAdjusted, userCreated } from '../../../application/events/event-facts.js';
import type { SignUpWithLicenseInput } from '../../../application/ports/user-store.js';
import type { AdjustmentRecord, LicenseRecord, UserRecord } from '../../../application/records.js';
import { DomainError } from '../../../domain/errors.js';
import { emptyMembership } from '../../../domain/membership.js';
import { releaseRedemption } from '../../../domain/seat-release.js';
import type { Plan } from '../../../domain/plan.js';
import { assertNewHolderMachine, severalHolders } from '../../../domain/seats.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, type Dialect, firstRow, ofApplication } from '../dialect.js';
import { membershipColumns } from '../row-mappers.js';
import type { RecordEvents } from './event-log.js';
import { decidePlanRedemption, seatFor, writeSeat } from './plan-redemption.js';
import { grantOf, planOfLicense } from './seats.js';
import { findUser, insertUser } from './writes.js';

/** Locks the plan new licenses are issued of: PLAN_NOT_FOUND, PLAN_ARCHIVED. Deleting a plan locks it
 * too before it looks for licenses of it, so none is issued of a plan being deleted. */
export async function lockIssuablePlan(d: Dialect, tx: Db, applicationId: string, planId: string): Promise<void> {
  const { plans } = d.t;
  const plan = await firstRow(
    d,
    tx
      .select({ archived: plans.archived })
      .from(plans)
      .where(ofApplication(plans, applicationId, planId)),
    true,
  );
  if (plan === null) throw new DomainError('PLAN_NOT_FOUND', 'no such plan');
  if (plan.archived) throw new DomainError('PLAN_ARCHIVED', 'an archived plan has no new licenses');
}

/** UserStore.signUpWithLicense for a plan's license (locked by the caller): the new user takes a seat. */
export async function signUpWithPlan(
  d: Dialect,
  tx: Db,
  recordEvents: RecordEvents,
  input: SignUpWithLicenseInput,
  license: LicenseRecord,
  actor: Actor,
): Promise<{ user: UserRecord; adjustment: AdjustmentRecord }> {
  const { adjustments, devices } = d.t;
  const newcomer: UserRecord = { ...input.user, applicationId: input.applicationId, membership: emptyMembership, planId: null, licenseId: license.id };
  let device = input.device;
  // A code of several holders registers the machine its holder is told apart by at login, whatever
  // device auth says (docs/plans.md, "Logins by a code of several seats").
  const machineOfHolder = async (plan: Plan) => {
    if (!severalHolders({ seats: license.seats, floating: plan.floating })) return;
    const hardwareId = input.holderDevice?.hardwareId ?? null;
    assertNewHolderMachine(hardwareId, hardwareId !== null && (await heldByMachine(d, tx, license, hardwareId)));
    device = input.holderDevice;
  };
  const plan = await seatFor(d, tx, license, newcomer.id, 'sign_up', machineOfHolder);
  const redeemed = await decidePlanRedemption(d, tx, plan, license, newcomer, input.now, input.adjustmentId);
  await insertUser(d, tx, redeemed.user);
  await tx.insert(adjustments).values(redeemed.adjustment);
  if (device !== null) await tx.insert(devices).values(device);
  const seat = await writeSeat(d, tx, plan, license, redeemed, input.now);
  const drafts: EventDraft[] = [userCreated(redeemed.user, 'sign_up_with_license_code', input.now), licenseActivated(seat.license, redeemed.user, redeemed.adjustment, input.now)];
  if (device !== null) drafts.push(deviceRegistered(input.applicationId, redeemed.user, device));
  await recordEvents(tx, actor, drafts, input.now);
  return { user: redeemed.user, adjustment: redeemed.adjustment };
}

/** Whether a license-code user of `license` has `hardwareId` registered (users_app_license_idx, then
 * devices_user_hardware_uq), read under the license's lock. */
async function heldByMachine(d: Dialect, tx: Db, license: LicenseRecord, hardwareId: string): Promise<boolean> {
  const { users, devices } = d.t;
  const registered = and(eq(devices.userId, users.id), eq(devices.hardwareId, hardwareId));
  const holders = and(eq(users.applicationId, license.applicationId), eq(users.licenseId, license.id));
  const [held] = await tx.select({ id: users.id }).from(users).innerJoin(devices, registered).where(holders).limit(1);
  return held !== undefined;
}

export interface SeatRelease {
  applicationId: string;
  licenseId: string;
  userId: string;
  adjustmentId: string;
  now: Instant;
}

/** LicenseStore.releaseSeat in `tx`: the user's row first, then the license's, as redemptions lock them. */
export async function releaseSeatIn(d: Dialect, tx: Db, recordEvents: RecordEvents, input: SeatRelease, actor: Actor): Promise<boolean> {
  const { licenses, licenseRedemptions: r } = d.t;
  const user = await findUser(d, tx, input.applicationId, input.userId, true);
  const license = await firstRow(
    d,
    tx
      .select()
      .from(licenses)
      .where(ofApplication(licenses, input.applicationId, input.licenseId)),
    true,
  );
  if (license === null || license.planId === null) return false;
  const theSeat = and(eq(r.licenseId, license.id), eq(r.userId, input.userId));
  const [seat] = await tx.delete(r).where(theSeat).returning();
  if (seat === undefined) return false;
  await freeSeat(d, tx, license, input.userId);
  // A user deleted since keeps nothing to take back; the seat is freed all the same.
  if (user !== null) {
    const plan = await planOfLicense(d, tx, license);
    const grant = plan.kind === 'add_on' ? await grantOf(d, tx, user.id, plan.id) : null;
    const outcome = releaseRedemption(
      { membership: user.membership, planId: user.planId, grant },
      { licenseId: license.id, plan, planFrom: seat.planFrom, minutes: seat.minutes },
      input.now,
      input.adjustmentId,
    );
    const adjustment: AdjustmentRecord = { ...outcome.adjustment, applicationId: input.applicationId, userId: user.id };
    const after = await takeBack(d, tx, user, outcome);
    await tx.insert(d.t.adjustments).values(adjustment);
    await recordEvents(tx, actor, [membershipAdjusted(after, adjustment, input.now)], input.now);
  }
  // A remembered ban probe of the user may hold this banned code's ban: a new bans version drops it (docs/choices.md, "Bans").
  if (license.banned)
    await tx
      .update(d.t.applications)
      .set({ bansVersion: sql`${d.t.applications.bansVersion} + 1` })
      .where(eq(d.t.applications.id, license.applicationId));
  return true;
}

/** Writes what a release takes back; returns the user as it now is. */
async function takeBack(d: Dialect, tx: Db, user: UserRecord, outcome: ReturnType<typeof releaseRedemption>): Promise<UserRecord> {
  const { users, addOnGrants: g } = d.t;
  if (outcome.kind === 'membership') {
    await tx
      .update(users)
      .set({ ...membershipColumns(outcome.membership), planId: outcome.planId })
      .where(eq(users.id, user.id));
    return { ...user, membership: outcome.membership, planId: outcome.planId };
  }
  if (outcome.grant !== null)
    await tx
      .update(g)
      .set({ endsAt: outcome.grant.endsAt })
      .where(and(eq(g.userId, user.id), eq(g.planId, outcome.grant.planId)));
  return user;
}

/** Counts the redemption off the license; used_at and used_by follow the earliest redemption left
 * (none left: the code is unused again), so ban keys and the used filter stay exact. */
async function freeSeat(d: Dialect, tx: Db, license: LicenseRecord, userId: string): Promise<void> {
  const { licenses, licenseRedemptions: r } = d.t;
  const counted = { redemptions: sql`${licenses.redemptions} - 1` };
  if (license.usedByUserId !== userId) {
    await tx.update(licenses).set(counted).where(eq(licenses.id, license.id));
    return;
  }
  const [next] = await tx.select({ userId: r.userId, redeemedAt: r.redeemedAt }).from(r).where(eq(r.licenseId, license.id)).orderBy(asc(r.redeemedAt), asc(r.userId)).limit(1);
  await tx
    .update(licenses)
    .set({ ...counted, usedAt: next?.redeemedAt ?? null, usedByUserId: next?.userId ?? null })
    .where(eq(licenses.id, license.id));
}
