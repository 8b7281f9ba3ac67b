// The redemptions of a plan's code and the add-on grants they give, read and written in the caller's
// transaction, under the license's row lock (docs/architecture.md, "Redeeming a license").
import { and, eq, sql } from 'drizzle-orm';
import type { LicenseRecord } from '../../../application/records.js';
import type { AddOnGrant } from '../../../domain/add-on-grants.js';
import type { Plan } from '../../../domain/plan.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, type Dialect, firstAs, ofApplication } from '../dialect.js';
import { toPlan } from '../row-mappers.js';

/** The plan a license of the application grants (a plan in use is never deleted). */
export async function planOfLicense(d: Dialect, tx: Db, license: Pick<LicenseRecord, 'applicationId' | 'planId'>): Promise<Plan> {
  const { plans } = d.t;
  const plan =
    license.planId === null
      ? null
      : await firstAs(
          tx
            .select()
            .from(plans)
            .where(ofApplication(plans, license.applicationId, license.planId)),
          toPlan,
        );
  if (plan === null) throw new Error(`license of plan ${String(license.planId)} refers to no plan of its application`);
  return plan;
}

/** The users who redeemed the license (its license_redemptions rows). */
export async function redeemersOf(d: Dialect, tx: Db, licenseId: string): Promise<Set<string>> {
  const { licenseRedemptions: r } = d.t;
  const rows = await tx.select({ userId: r.userId }).from(r).where(eq(r.licenseId, licenseId));
  return new Set(rows.map((row) => row.userId));
}

/** Records `userId`'s redemption and counts it on the license; the first one marks it used. */
export async function takeSeat(d: Dialect, tx: Db, license: LicenseRecord, taken: { userId: string; planFrom: string | null; minutes: number | null }, now: Instant): Promise<LicenseRecord> {
  const { licenseRedemptions, licenses } = d.t;
  await tx.insert(licenseRedemptions).values({ licenseId: license.id, applicationId: license.applicationId, userId: taken.userId, redeemedAt: now, planFrom: taken.planFrom, minutes: taken.minutes });
  const first = license.usedAt === null ? { usedAt: now, usedByUserId: taken.userId } : {};
  const next = { ...license, ...first, redemptions: license.redemptions + 1 };
  await tx
    .update(licenses)
    .set({ ...first, redemptions: sql`${licenses.redemptions} + 1` })
    .where(eq(licenses.id, license.id));
  return next;
}

/** The user's add-on grants. */
export async function grantsOf(d: Dialect, tx: Db, userId: string): Promise<AddOnGrant[]> {
  const { addOnGrants: g } = d.t;
  return tx.select({ planId: g.planId, endsAt: g.endsAt }).from(g).where(eq(g.userId, userId));
}

/** Writes the user's grant of the add-on, replacing the one it stacked on (one row per user and add-on). */
export async function saveGrant(d: Dialect, tx: Db, applicationId: string, userId: string, grant: AddOnGrant, now: Instant): Promise<void> {
  const { addOnGrants: g } = d.t;
  const replaced = { target: [g.userId, g.planId], set: { endsAt: grant.endsAt, grantedAt: now } };
  await tx.insert(g).values({ applicationId, userId, planId: grant.planId, endsAt: grant.endsAt, grantedAt: now }).onConflictDoUpdate(replaced);
  await tx.update(d.t.users).set({ holdsAddOns: true }).where(eq(d.t.users.id, userId));
}

/** The user's grant of one add-on, or null. */
export async function grantOf(d: Dialect, tx: Db, userId: string, planId: string): Promise<AddOnGrant | null> {
  const { addOnGrants: g } = d.t;
  const [row] = await tx
    .select({ planId: g.planId, endsAt: g.endsAt })
    .from(g)
    .where(and(eq(g.userId, userId), eq(g.planId, planId)));
  return row ?? null;
}
