// License codes of an application.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { Instant } from '../../domain/time.js';
import type { LicenseRecord } from '../records.js';

export interface LicenseStore {
  /** ATOMIC: all or none. */
  insertLicenses(licenses: LicenseRecord[], actor: Actor): Promise<void>;
  /** Oldest first. */
  listLicenses(applicationId: string, status?: 'used' | 'unused'): Promise<LicenseRecord[]>;
  findLicenseByDigest(applicationId: string, codeDigest: string): Promise<LicenseRecord | null>;
  findLicenseById(applicationId: string, id: string): Promise<LicenseRecord | null>;
  /** The sealed codes of those of `ids` that are licenses of the application (the audit log's names). */
  sealedCodesOf(applicationId: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** ATOMIC: deletes an unused license; a used one is kept. */
  deleteUnusedLicense(applicationId: string, id: string, now: Instant, actor: Actor): Promise<'deleted' | 'used' | 'missing'>;
}
