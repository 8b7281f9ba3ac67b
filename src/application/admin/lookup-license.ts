import { DomainError } from '../../domain/errors.js';
import { findLicenseByCode, type IssuedLicense } from '../console/licenses.js';
import type { Deps } from '../deps.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord } from '../records.js';

export interface LicenseLookup extends IssuedLicense {
  /** The license is the login of a license-code user (signed up with it). */
  isCredentialsLicense: boolean;
}

/** A license of the admin key's application by its code, in any case (docs/api.md,
 * GET /license/{code}). Another application's code answers like an unknown one. */
export async function lookupLicense(deps: Pick<Deps, 'secrets'> & { store: LicenseStore & UserStore }, app: ApplicationRecord, code: string): Promise<LicenseLookup> {
  const found = await findLicenseByCode(deps, app.id, code);
  if (found === null) throw new DomainError('LICENSE_NOT_FOUND', 'no license with that code');
  const holders = await deps.store.findLicenseHolders(app.id, found.license.id);
  return { ...found, isCredentialsLicense: holders.length > 0 };
}
