import type { Actor } from './events/actor.js';
import { isMembershipActive } from '../domain/membership.js';
import { assertNotTimedOut } from '../domain/timeout.js';
import { DomainError } from '../domain/errors.js';
import { type BanGuardDeps, guardBans } from './ban-guard.js';
import type { Caller } from './deps.js';
import type { UserStore } from './ports/user-store.js';
import type { ApplicationRecord, UserRecord } from './records.js';

/**
 * What every authenticated request re-checks, in order: bans (of the user, the address, the
 * device and every license the user redeemed), the user's timeout, and the membership. A ban or
 * timeout bites on the next request. The user is proven here, so propagation may reach the
 * address and the user's own registered devices.
 */
/** The proof a verified user brings: their own registered devices may be banned by propagation. */
export function userProof(deps: { store: UserStore }, app: ApplicationRecord, user: UserRecord) {
  return async () => ({
    registeredHardwareIds: (await deps.store.getUserDetails(app.id, user.id))?.devices.map((d) => d.hardwareId) ?? [],
  });
}

/** What the access re-check uses: the ban check, and the user's licenses and devices. */
export type UserAccessDeps = BanGuardDeps & { store: UserStore };

/**
 * Bans and the timeout, the part of the access re-check that also refuses a change to the account
 * itself (a password change), which needs no active membership.
 */
export async function assertNotBarred(
  deps: UserAccessDeps,
  app: ApplicationRecord,
  user: UserRecord,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null,
  /** The user's redeemed licenses, when the caller read them already. */
  redeemed?: readonly string[],
): Promise<void> {
  const licenseIds = redeemed ?? (await deps.store.redeemedLicenseIds(app.id, user.id));
  const ids = { ip: caller.ip, hardwareId, userId: user.id, licenseIds };
  await guardBans(deps, app, ids, actor, userProof(deps, app, user));
  assertNotTimedOut(user.timeout, deps.clock.now());
}

/** Bans, the timeout, then the membership: what every authenticated request re-checks. */
export async function assertUserAccess(...args: Parameters<typeof assertNotBarred>): Promise<void> {
  await assertNotBarred(...args);
  const [deps, , user] = args;
  if (!isMembershipActive(user.membership, deps.clock.now())) {
    throw new DomainError('MEMBERSHIP_INACTIVE', 'the membership of this account is not active');
  }
}
