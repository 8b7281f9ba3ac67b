import { usernameKey } from '../../domain/credentials-policy.js';
import { DomainError } from '../../domain/errors.js';
import { licenseDigest } from '../credential-checks.js';
import type { Deps } from '../deps.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord, UserDetails } from '../records.js';

/** A user by username, or by a license code: the user who redeemed that license. Usernames win:
 * a generated username can never look like a license code, so the two never compete. */
export async function lookupUser(deps: Pick<Deps, 'secrets'> & { store: LicenseStore & UserStore }, app: ApplicationRecord, usernameOrCode: string): Promise<UserDetails> {
  let user = await deps.store.findUserByUsernameKey(app.id, usernameKey(usernameOrCode));
  if (user === null) {
    const digest = licenseDigest(deps, usernameOrCode);
    const license = digest === null ? null : await deps.store.findLicenseByDigest(app.id, digest);
    // A code several users hold names none of them: the route answers one user (docs/plans.md,
    // "Logins by a code of several seats").
    if (license !== null && license.redemptions > 1) throw new DomainError('LICENSE_HELD_BY_SEVERAL', 'several users hold this license code; look one up by username');
    if (license?.usedByUserId) user = await deps.store.findUserById(app.id, license.usedByUserId);
  }
  const details = user === null ? null : await deps.store.getUserDetails(app.id, user.id);
  if (details === null) throw new DomainError('USER_NOT_FOUND', 'no user with that username or license code');
  return details;
}
