import { isMembershipActive } from '../domain/membership.js';
import { assertNotTimedOut } from '../domain/timeout.js';
import { DomainError } from '../domain/errors.js';
import { guardBans } from './ban-guard.js';
import type { Caller, Deps } from './deps.js';
import type { ApplicationRecord, UserRecord } from './ports.js';

/**
 * What every authenticated request re-checks, in order: bans (of the user, address, device and
 * license), the user's timeout, and the membership. A ban or timeout bites on the next request.
 */
export async function assertUserAccess(
  deps: Deps,
  app: ApplicationRecord,
  user: UserRecord,
  caller: Caller,
  hardwareId: string | null,
): Promise<void> {
  await guardBans(deps, app, { ip: caller.ip, hardwareId, userId: user.id, licenseId: user.licenseId });
  const now = deps.clock.now();
  assertNotTimedOut(user.timeout, now);
  if (!isMembershipActive(user.membership, now)) {
    throw new DomainError('MEMBERSHIP_INACTIVE', 'the membership of this account is not active');
  }
}
