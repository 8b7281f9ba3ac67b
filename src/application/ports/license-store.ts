// License codes of an application.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { Instant } from '../../domain/time.js';
import type { LicenseRecord, LicenseRedemption } from '../records.js';

export interface LicenseStore {
  /** ATOMIC: all or none. Licenses of a plan (one plan a batch) are refused with PLAN_NOT_FOUND or
   * PLAN_ARCHIVED as the plan is under its lock. */
  insertLicenses(licenses: LicenseRecord[], actor: Actor): Promise<void>;
  /** Oldest first. */
  listLicenses(applicationId: string, status?: 'used' | 'unused'): Promise<LicenseRecord[]>;
  findLicenseByDigest(applicationId: string, codeDigest: string): Promise<LicenseRecord | null>;
  findLicenseById(applicationId: string, id: string): Promise<LicenseRecord | null>;
  /** The sealed codes of those of `ids` that are licenses of the application (the audit log's names). */
  sealedCodesOf(applicationId: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** ATOMIC: deletes an unused license; a used one is kept. */
  deleteUnusedLicense(applicationId: string, id: string, now: Instant, actor: Actor): Promise<'deleted' | 'used' | 'missing'>;
  /** Who redeemed a plan's code, earliest first; null when the application has no such license. */
  listRedemptions(applicationId: string, licenseId: string): Promise<LicenseRedemption[] | null>;
  /** ATOMIC: deletes `userId`'s redemption of the license and takes back what it granted
   * (domain/seat-release.ts), recorded as adjustment `adjustmentId`. False when there is none. */
  releaseSeat(input: { applicationId: string; licenseId: string; userId: string; adjustmentId: string; now: Instant }, actor: Actor): Promise<boolean>;
}
