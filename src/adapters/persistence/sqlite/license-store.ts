// Licenses, and redeeming them (for a new license-code user or an existing user). Redemption
// checks and marks the license in one BEGIN IMMEDIATE transaction, so a code is used once even
// when several processes share the database file.
import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { AdjustmentRecord, LicenseRecord, LicenseStore, UserStore } from '../../../application/ports.js';
import { DomainError } from '../../../domain/errors.js';
import { assertRedeemable, licenseRefusal } from '../../../domain/license.js';
import { applyLicense, emptyMembership } from '../../../domain/membership.js';
import type { Instant } from '../../../domain/time.js';
import type { Connection, Db } from './db.js';
import type { HotReads } from './hot-reads.js';
import { membershipColumns, toLicense } from '../row-mappers.js';
import { licenses, users } from './schema.js';
import { admit, findUser, insertAdjustment, insertDevice, insertUser } from './writes.js';

/** Inside a transaction on the connection too: the prepared reads run on it (prepared-read.ts). */
function findByDigest(reads: HotReads, applicationId: string, codeDigest: string): LicenseRecord | null {
  const row = reads.licenseByDigest.get({ applicationId, codeDigest });
  return row ? toLicense(row) : null;
}

/**
 * Marks a license used. The immediate transaction already excludes other writers; the conditions
 * on the UPDATE keep the single use even if this ever runs under a weaker isolation.
 */
function markUsed(tx: Db, licenseId: string, userId: string, now: Instant): boolean {
  return (
    tx
      .update(licenses)
      .set({ usedAt: now, usedByUserId: userId })
      .where(and(eq(licenses.id, licenseId), isNull(licenses.usedAt), eq(licenses.banned, false)))
      .run().changes === 1
  );
}

type Redemption = Pick<UserStore, 'signUpWithLicense' | 'activateLicense' | 'redeemedLicenseIds'>;

export function licenseStore({ db, reads, immediate }: Connection): LicenseStore & Redemption {
  return {
    async insertLicenses(batch) {
      if (batch.length === 0) return;
      immediate((tx) => {
        for (const l of batch) tx.insert(licenses).values(l).run();
      });
    },
    async listLicenses(applicationId, status) {
      const byStatus = status === 'used' ? isNotNull(licenses.usedAt) : status === 'unused' ? isNull(licenses.usedAt) : undefined;
      return db
        .select()
        .from(licenses)
        .where(and(eq(licenses.applicationId, applicationId), byStatus))
        .orderBy(asc(licenses.createdAt), asc(licenses.id))
        .all()
        .map(toLicense);
    },
    async findLicenseByDigest(applicationId, codeDigest) {
      return findByDigest(reads, applicationId, codeDigest);
    },
    async findLicenseById(applicationId, id) {
      const row = db
        .select()
        .from(licenses)
        .where(and(eq(licenses.applicationId, applicationId), eq(licenses.id, id)))
        .get();
      return row ? toLicense(row) : null;
    },
    async redeemedLicenseIds(applicationId, userId) {
      return reads.redeemedLicenseIds.all({ applicationId, userId }).map((r) => r.id);
    },
    async deleteUnusedLicense(applicationId, id) {
      return immediate((tx) => {
        const row = tx
          .select({ usedAt: licenses.usedAt })
          .from(licenses)
          .where(and(eq(licenses.applicationId, applicationId), eq(licenses.id, id)))
          .get();
        if (!row) return 'missing' as const;
        if (row.usedAt !== null) return 'used' as const;
        tx.delete(licenses).where(eq(licenses.id, id)).run();
        return 'deleted' as const;
      });
    },

    async signUpWithLicense(input) {
      return immediate((tx) => {
        const license = findByDigest(reads, input.applicationId, input.licenseDigest);
        assertRedeemable(license, 'sign_up');
        const { membership, adjustment } = applyLicense(
          emptyMembership,
          { licenseId: license.id, minutes: license.minutes },
          input.now,
          input.adjustmentId,
        );
        const user = { ...input.user, applicationId: input.applicationId, membership, licenseId: license.id };
        insertUser(tx, user);
        if (!markUsed(tx, license.id, user.id, input.now)) {
          throw licenseRefusal('used', 'sign_up');
        }
        const record: AdjustmentRecord = { ...adjustment, applicationId: input.applicationId, userId: user.id };
        insertAdjustment(tx, record);
        insertDevice(tx, input.device);
        return { user, adjustment: record };
      });
    },

    async activateLicense(input) {
      return immediate((tx) => {
        const user = findUser(reads, input.applicationId, input.userId);
        if (user === null) throw new DomainError('USER_NOT_FOUND', 'no such user');
        const license = findByDigest(reads, input.applicationId, input.licenseDigest);
        assertRedeemable(license, 'activation');
        if (!markUsed(tx, license.id, user.id, input.now)) throw licenseRefusal('used', 'activation');
        if (input.device !== null) admit(tx, reads, user.id, input.device.hardwareId, input.device.allowed, input.device.newDeviceId, input.now);
        const { membership, adjustment } = applyLicense(
          user.membership,
          { licenseId: license.id, minutes: license.minutes },
          input.now,
          input.adjustmentId,
        );
        tx.update(users).set(membershipColumns(membership)).where(eq(users.id, user.id)).run();
        const record: AdjustmentRecord = { ...adjustment, applicationId: input.applicationId, userId: user.id };
        insertAdjustment(tx, record);
        return record;
      });
    },
  };
}
