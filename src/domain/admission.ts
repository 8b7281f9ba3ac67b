// Whether a user read under its row lock may still sign in or be issued a license file: the
// password was verified before the lock, so what landed meanwhile must still refuse
// (docs/architecture.md, "Persistence notes", "Admission under the user's lock").
import type { ApplicationSettings } from './application-settings.js';
import { bannedError } from './bans.js';
import { type Caps, effectiveCaps } from './caps.js';
import { DomainError } from './errors.js';
import { hasAccess } from './grace.js';
import type { Membership } from './membership.js';
import type { Instant } from './time.js';
import { assertNotTimedOut, type UserTimeout } from './timeout.js';

/** The user, once it exists and is neither banned nor timed out, with an active membership or one
 * in the grace of its base plan (`graceMinutes`, 0 without a plan; docs/plans.md, "Grace"). */
export function assertAdmitted<U extends { timeout: UserTimeout | null; membership: Membership }>(user: U | null, banned: boolean, now: Instant, graceMinutes = 0): U {
  if (user === null) throw new DomainError('INVALID_CREDENTIALS', 'invalid credentials');
  if (banned) throw bannedError();
  assertNotTimedOut(user.timeout, now);
  if (!hasAccess(user.membership, graceMinutes, now)) {
    throw new DomainError('MEMBERSHIP_INACTIVE', 'the membership of this account is not active');
  }
  return user;
}

/** The caps a sign-in, activation or license file admits by (docs/plans.md, "Caps"): the user's
 * override, then the base plan's, then the application's defaults. */
export const admissionCaps = (
  user: { allowedDevices: number | null; allowedSessions: number | null },
  basePlan: { maxDevices: number | null; maxSessions: number | null } | null,
  defaults: Pick<ApplicationSettings, 'defaultAllowedDevices' | 'defaultAllowedSessions'>,
): Caps => effectiveCaps({ user, basePlan, defaults });
