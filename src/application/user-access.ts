import type { Actor } from './events/actor.js';
import { hasAccess } from '../domain/grace.js';
import { isMembershipActive } from '../domain/membership.js';
import { graceMinutesOf } from '../domain/membership-state.js';
import { assertNotTimedOut } from '../domain/timeout.js';
import { DomainError } from '../domain/errors.js';
import type { BanProof } from '../domain/bans.js';
import { type BanGuardDeps, guardBans } from './ban-guard.js';
import type { Caller } from './deps.js';
import type { UserStore } from './ports/user-store.js';
import type { ApplicationRecord, UserRecord } from './records.js';

/** The proof a verified user brings, asked only once a ban matched: their own registered devices
 * and redeemed licenses may be banned by propagation. */
export function userProof(deps: { store: UserStore }, app: ApplicationRecord, user: UserRecord): () => Promise<BanProof> {
  return async () => {
    const [details, redeemedLicenseIds] = await Promise.all([deps.store.getUserDetails(app.id, user.id), deps.store.redeemedLicenseIds(app.id, user.id)]);
    return { registeredHardwareIds: details?.devices.map((d) => d.hardwareId) ?? [], redeemedLicenseIds };
  };
}

/** What the access re-check uses: the ban check, and the user's licenses and devices. */
export type UserAccessDeps = BanGuardDeps & { store: UserStore };

/** Bans and the timeout, the part of the access re-check that also refuses a change to the account
 * itself (a password change), which needs no active membership. */
export async function assertNotBarred(deps: UserAccessDeps, app: ApplicationRecord, user: UserRecord, caller: Caller, actor: Actor, hardwareId: string | null): Promise<void> {
  // The user's redeemed licenses are matched with the user (RequestIdentifiers.userId).
  const ids = { ip: caller.ip, hardwareId, userId: user.id };
  await guardBans(deps, app, ids, actor, userProof(deps, app, user));
  assertNotTimedOut(user.timeout, deps.clock.now());
}

/** What every authenticated request re-checks, in order: bans (user, address, device, redeemed
 * licenses), timeout and membership, so a ban or timeout bites on the next request. The user is
 * proven here, so propagation may reach their address, devices and licenses. */
export async function assertUserAccess(...args: Parameters<typeof assertNotBarred>): Promise<void> {
  await assertNotBarred(...args);
  const [deps, app, user] = args;
  const now = deps.clock.now();
  // The plan is read only for a membership that ended: its grace may still give access (docs/plans.md, "Grace").
  if (isMembershipActive(user.membership, now)) return;
  const grace = user.planId === null ? 0 : graceMinutesOf(await deps.store.findUserPlans(app.id, user.id, user.planId));
  if (!hasAccess(user.membership, grace, now)) {
    throw new DomainError('MEMBERSHIP_INACTIVE', 'the membership of this account is not active');
  }
}
