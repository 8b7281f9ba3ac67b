// Licenses, and redeeming them (for a new license-code user or an existing user). Redemption locks
// the license row (SELECT ... FOR UPDATE) before checking it and marks it with a conditional
// UPDATE, so a code is used once even when several instances share the database.
import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { AdjustmentRecord, LicenseRecord, LicenseStore, UserStore } from '../../../application/ports.js';
import { DomainError } from '../../../domain/errors.js';
import { assertRedeemable, licenseRefusal } from '../../../domain/license.js';
import { applyLicense, emptyMembership } from '../../../domain/membership.js';
import type { Instant } from '../../../domain/time.js';
import { binary, type Connection, type Db, chunks } from './db.js';
import { membershipColumns, toLicense } from '../row-mappers.js';
import { licenses, users } from './schema.js';
import type { HotReads } from './hot-reads.js';
import { admit, findUser, insertAdjustment, insertDevice, insertUser } from './writes.js';

/** The license of the application with this digest; with `lock`, its row is locked until the transaction ends. */
async function findByDigest(tx: Db, applicationId: string, codeDigest: string, lock = false): Promise<LicenseRecord | null> {
  const query = tx
    .select()
    .from(licenses)
    .where(and(eq(licenses.applicationId, applicationId), eq(licenses.codeDigest, codeDigest)));
  const [row] = lock ? await query.for('update') : await query;
  return row ? toLicense(row) : null;
}

/**
 * Marks a license used. The row lock already excludes other redemptions; the conditions on the
 * UPDATE keep the single use even without it.
 */
async function markUsed(tx: Db, licenseId: string, userId: string, now: Instant): Promise<boolean> {
  const result = await tx
    .update(licenses)
    .set({ usedAt: now, usedByUserId: userId })
    .where(and(eq(licenses.id, licenseId), isNull(licenses.usedAt), eq(licenses.banned, false)));
  return result.count === 1;
}

type Redemption = Pick<UserStore, 'signUpWithLicense' | 'activateLicense' | 'redeemedLicenseIds'>;

export function licenseStore({ db, transaction }: Connection, reads: HotReads): LicenseStore & Redemption {
  return {
    async insertLicenses(batch) {
      if (batch.length === 0) return;
      await transaction(async (tx) => {
        for (const part of chunks(batch)) await tx.insert(licenses).values(part);
      });
    },
    async listLicenses(applicationId, status) {
      const byStatus = status === 'used' ? isNotNull(licenses.usedAt) : status === 'unused' ? isNull(licenses.usedAt) : undefined;
      const rows = await db
        .select()
        .from(licenses)
        .where(and(eq(licenses.applicationId, applicationId), byStatus))
        .orderBy(asc(licenses.createdAt), asc(binary(licenses.id)));
      return rows.map(toLicense);
    },
    findLicenseByDigest: reads.findLicenseByDigest,
    async findLicenseById(applicationId, id) {
      const [row] = await db
        .select()
        .from(licenses)
        .where(and(eq(licenses.applicationId, applicationId), eq(licenses.id, id)));
      return row ? toLicense(row) : null;
    },
    redeemedLicenseIds: reads.redeemedLicenseIds,
    async deleteUnusedLicense(applicationId, id) {
      return transaction(async (tx) => {
        // Locked, so a redemption cannot mark it used between this check and the delete.
        const [row] = await tx
          .select({ usedAt: licenses.usedAt })
          .from(licenses)
          .where(and(eq(licenses.applicationId, applicationId), eq(licenses.id, id)))
          .for('update');
        if (!row) return 'missing' as const;
        if (row.usedAt !== null) return 'used' as const;
        await tx.delete(licenses).where(eq(licenses.id, id));
        return 'deleted' as const;
      });
    },

    async signUpWithLicense(input) {
      return transaction(async (tx) => {
        const license = await findByDigest(tx, input.applicationId, input.licenseDigest, true);
        assertRedeemable(license, 'sign_up');
        const { membership, adjustment } = applyLicense(
          emptyMembership,
          { licenseId: license.id, minutes: license.minutes },
          input.now,
          input.adjustmentId,
        );
        const user = { ...input.user, applicationId: input.applicationId, membership, licenseId: license.id };
        await insertUser(tx, user);
        if (!(await markUsed(tx, license.id, user.id, input.now))) {
          throw licenseRefusal('used', 'sign_up');
        }
        const record: AdjustmentRecord = { ...adjustment, applicationId: input.applicationId, userId: user.id };
        await insertAdjustment(tx, record);
        await insertDevice(tx, input.device);
        return { user, adjustment: record };
      });
    },

    async activateLicense(input) {
      return transaction(async (tx) => {
        // The user first (its membership is read, changed and written back, and a device may be
        // admitted), then the license: always in this order, so redemptions cannot deadlock.
        const user = await findUser(tx, input.applicationId, input.userId, true);
        if (user === null) throw new DomainError('USER_NOT_FOUND', 'no such user');
        const license = await findByDigest(tx, input.applicationId, input.licenseDigest, true);
        assertRedeemable(license, 'activation');
        if (!(await markUsed(tx, license.id, user.id, input.now))) throw licenseRefusal('used', 'activation');
        if (input.device !== null) {
          await admit(tx, user.id, input.device.hardwareId, input.device.allowed, input.device.newDeviceId, input.now);
        }
        const { membership, adjustment } = applyLicense(
          user.membership,
          { licenseId: license.id, minutes: license.minutes },
          input.now,
          input.adjustmentId,
        );
        await tx.update(users).set(membershipColumns(membership)).where(eq(users.id, user.id));
        const record: AdjustmentRecord = { ...adjustment, applicationId: input.applicationId, userId: user.id };
        await insertAdjustment(tx, record);
        return record;
      });
    },
  };
}
