// Starting a trial (docs/plans.md, "Trials"): one transaction that locks the user, then the trial
// plan, records the machine in the trial ledger and grants the plan (docs/architecture.md,
// "Persistence notes", "Starting a trial").
import { eq } from 'drizzle-orm';
import { trialStarted } from '../../../application/events/event-facts.js';
import type { TrialStore } from '../../../application/ports/trial-store.js';
import type { AdjustmentRecord, UserRecord } from '../../../application/records.js';
import { bannedError } from '../../../domain/bans.js';
import { DomainError } from '../../../domain/errors.js';
import { assertNotTimedOut } from '../../../domain/timeout.js';
import { assertTrialPlan, startTrial } from '../../../domain/trials.js';
import { type Db, type Dialect, exists, firstAs, ofApplication } from '../dialect.js';
import { membershipColumns, toPlan } from '../row-mappers.js';
import type { RecordEvents } from './event-log.js';
import { admit, findUser, userBanned } from './writes.js';

/** The application's plan, locked until the transaction ends: a delete of it waits, and then finds
 * it named or held (planStore's inUse). */
const lockedPlan = (d: Dialect, tx: Db, applicationId: string, planId: string) =>
  firstAs(
    d.locked(
      tx
        .select()
        .from(d.t.plans)
        .where(ofApplication(d.t.plans, applicationId, planId)),
    ),
    toPlan,
  );

/** The application's trial plan, locked; null when none is named or it is gone. */
async function lockedTrialPlan(d: Dialect, tx: Db, applicationId: string) {
  const { applications } = d.t;
  const [app] = await tx.select({ trialPlanId: applications.trialPlanId }).from(applications).where(eq(applications.id, applicationId));
  const planId = app?.trialPlanId ?? null;
  return planId === null ? null : lockedPlan(d, tx, applicationId, planId);
}

/** Refuses a plan an owner names as the trial plan unless the domain's assertTrialPlan takes it. */
export async function assertNamedTrialPlan(d: Dialect, tx: Db, applicationId: string, planId: string): Promise<void> {
  assertTrialPlan(await lockedPlan(d, tx, applicationId, planId));
}

/** Whether an application names the plan as its trial plan (planStore's inUse). */
export async function namedAsTrialPlan(d: Dialect, tx: Db, planId: string): Promise<boolean> {
  const { applications } = d.t;
  return exists(tx.select({ id: applications.id }).from(applications).where(eq(applications.trialPlanId, planId)));
}

/** Records the machine's digest unless the ledger holds it: false when it does. A racing insert of
 * the same key waits for the other transaction and then inserts nothing. */
async function recordMachine(d: Dialect, tx: Db, applicationId: string, hardwareDigest: string, now: number): Promise<boolean> {
  const { trialLedger } = d.t;
  const row = { applicationId, hardwareDigest, startedAt: now };
  const inserted = await tx.insert(trialLedger).values(row).onConflictDoNothing().returning({ digest: trialLedger.hardwareDigest });
  return inserted.length === 1;
}

export function trialStore(d: Dialect, recordEvents: RecordEvents): TrialStore {
  const { addOnGrants, adjustments, users } = d.t;
  return {
    startTrial: (input, actor) =>
      d.transaction(async (tx) => {
        const user = await findUser(d, tx, input.applicationId, input.userId, true);
        // Deleted, banned or timed out since the credentials were checked: refused as at login.
        if (user === null) throw new DomainError('INVALID_CREDENTIALS', 'invalid credentials');
        if (await userBanned(d, tx, input.applicationId, user.id)) throw bannedError();
        assertNotTimedOut(user.timeout, input.now);
        const plan = await lockedTrialPlan(d, tx, input.applicationId);
        const addOns = await tx.select({ planId: addOnGrants.planId, endsAt: addOnGrants.endsAt }).from(addOnGrants).where(eq(addOnGrants.userId, user.id));
        // The ledger's insert is its own check: a refusal after it rolls the row back.
        const hardwareUsed = plan !== null && user.trialStartedAt === null && !(await recordMachine(d, tx, input.applicationId, input.hardwareDigest, input.now));
        const outcome = startTrial({ plan, user, addOns, hardwareUsed }, input.now, input.adjustmentId);
        const drafts = input.device === null ? [] : await admit(d, tx, user, input.device, input.now);
        const granted: UserRecord = { ...user, membership: outcome.membership, planId: outcome.planId, trialStartedAt: input.now };
        await tx
          .update(users)
          .set({ ...membershipColumns(granted.membership), planId: granted.planId, trialStartedAt: input.now })
          .where(eq(users.id, user.id));
        const adjustment: AdjustmentRecord = { ...outcome.adjustment, applicationId: input.applicationId, userId: user.id };
        await tx.insert(adjustments).values(adjustment);
        drafts.push(trialStarted(granted, outcome.plan, adjustment, input.now));
        await recordEvents(tx, actor, drafts, input.now);
        return { user: granted, adjustment };
      }),
  };
}
