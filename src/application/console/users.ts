import type { Actor } from '../events/actor.js';
import { validateUserLimits } from '../../domain/application-settings.js';
import { nextDeviceResetAt } from '../../domain/device-reset.js';
import { DomainError, validationError } from '../../domain/errors.js';
import { canonicalLicenseCode } from '../../domain/license.js';
import { type BulkChange, validateBulkChange } from '../../domain/membership.js';
import { acceptEntitlements } from '../../domain/plan.js';
import type { Instant } from '../../domain/time.js';
import { type UserTimeout, validateTimeout } from '../../domain/timeout.js';
import { userAccountKeys } from '../credential-checks.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { ThrottleStore } from '../ports/throttle-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { UserVariableStore } from '../ports/user-variable-store.js';
import type { OwnerRecord, UserDetails, UserVariableRecord } from '../records.js';
import { setNewPassword } from '../integration/change-password.js';
import { ownedApplication, ownedUser } from './applications.js';

export const USER_PAGE_DEFAULT = 50;
export const USER_PAGE_MAX = 500;
export const ADJUSTMENT_USERS_MAX = 10_000;

const notFound = () => new DomainError('USER_NOT_FOUND', 'no such user');

async function details(deps: { store: UserStore }, appId: string, userId: string): Promise<UserDetails> {
  const found = await deps.store.getUserDetails(appId, userId);
  if (found === null) throw notFound();
  return found;
}

/** Users whose username contains `query`; when `query` is a license code, the user who redeemed
 * it (or nobody). Generated and chosen usernames can never be a license code, so nothing is lost. */
export async function searchUsers(
  deps: Pick<Deps, 'secrets'> & { store: ApplicationStore & LicenseStore & UserStore },
  owner: OwnerRecord,
  appId: string,
  input: { query?: string; limit?: number; offset?: number },
): Promise<UserDetails[]> {
  const app = await ownedApplication(deps, owner, appId);
  const limit = input.limit ?? USER_PAGE_DEFAULT;
  const offset = input.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > USER_PAGE_MAX) throw validationError('limit', `must be an integer from 1 to ${USER_PAGE_MAX}`);
  if (!Number.isInteger(offset) || offset < 0) throw validationError('offset', 'must be a non-negative integer');
  const query = input.query ?? '';
  const code = canonicalLicenseCode(query);
  if (code !== null) {
    const license = await deps.store.findLicenseByDigest(app.id, deps.secrets.digest(code));
    const user = license?.usedByUserId ? await deps.store.getUserDetails(app.id, license.usedByUserId) : null;
    return user === null || offset > 0 ? [] : [user];
  }
  const users = await deps.store.searchUsers(app.id, query, { limit, offset });
  const all = await Promise.all(users.map((u) => deps.store.getUserDetails(app.id, u.id)));
  return all.filter((d): d is UserDetails => d !== null);
}

/** What the console's user page shows: the user, their variables and their device resets. */
export interface UserPage {
  details: UserDetails;
  variables: UserVariableRecord[];
  /** When the user may next reset their devices; null when they may now, or reset is off. */
  nextDeviceResetAt: Instant | null;
}

export async function getUserPage(deps: Pick<Deps, 'clock'> & { store: ApplicationStore & UserStore & UserVariableStore }, owner: OwnerRecord, appId: string, userId: string): Promise<UserPage> {
  const app = await ownedApplication(deps, owner, appId);
  const found = await details(deps, app.id, userId);
  const next = nextDeviceResetAt(found.user.lastDeviceResetAt, app.settings.deviceResetCooldownHours);
  return {
    details: found,
    variables: await deps.store.listUserVariables(app.id, userId),
    nextDeviceResetAt: next !== null && next > deps.clock.now() ? next : null,
  };
}

/** The owner sets a user's password (docs/api.md, POST /change_password): the policy applies, and every session ends. */
export async function setUserPassword(
  deps: Pick<Deps, 'clock' | 'hasher'> & { store: ApplicationStore & UserStore },
  owner: OwnerRecord,
  appId: string,
  userId: string,
  password: string,
  actor: Actor,
): Promise<void> {
  const { app, user } = await ownedUser(deps, owner, appId, userId);
  if (!(await setNewPassword(deps, app, user, password, actor))) throw notFound();
}

export async function updateUserLimits(
  deps: { store: ApplicationStore & UserStore },
  owner: OwnerRecord,
  appId: string,
  userId: string,
  limits: { allowedDevices?: number | null; allowedSessions?: number | null },
): Promise<UserDetails> {
  const app = await ownedApplication(deps, owner, appId);
  validateUserLimits(limits);
  if ((await deps.store.updateUserLimits(app.id, userId, limits)) === null) throw notFound();
  return details(deps, app.id, userId);
}

/** The owner's direct grants (docs/plans.md, "Entitlements"): checked as a plan's codes are, kept
 * sorted and without repeats, replacing the user's earlier ones whole. */
export async function setUserEntitlements(deps: { store: ApplicationStore & UserStore }, owner: OwnerRecord, appId: string, userId: string, codes: readonly string[]): Promise<UserDetails> {
  const app = await ownedApplication(deps, owner, appId);
  const entitlements = acceptEntitlements(codes);
  if ((await deps.store.setUserEntitlements(app.id, userId, entitlements)) === null) throw notFound();
  return details(deps, app.id, userId);
}

/** Times the user out (ending their sessions) until `until`. */
export async function timeOutUser(
  deps: Pick<Deps, 'clock'> & { store: ApplicationStore & UserStore },
  owner: OwnerRecord,
  appId: string,
  userId: string,
  input: { until: Instant; reason?: string | null },
  actor: Actor,
): Promise<UserTimeout> {
  const app = await ownedApplication(deps, owner, appId);
  const now = deps.clock.now();
  validateTimeout(input.until, now);
  const reason = input.reason === undefined || input.reason === null || input.reason.trim() === '' ? null : input.reason;
  const timeout: UserTimeout = { until: input.until, reason };
  if (!(await deps.store.setUserTimeout(app.id, userId, timeout, now, actor))) throw notFound();
  return timeout;
}

export async function liftTimeout(deps: Pick<Deps, 'clock'> & { store: ApplicationStore & UserStore }, owner: OwnerRecord, appId: string, userId: string, actor: Actor): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if (!(await deps.store.setUserTimeout(app.id, userId, null, deps.clock.now(), actor))) throw notFound();
}

export async function deleteDevice(
  deps: Pick<Deps, 'clock'> & { store: ApplicationStore & UserStore },
  owner: OwnerRecord,
  appId: string,
  userId: string,
  deviceId: string,
  actor: Actor,
): Promise<void> {
  // A missing user answers USER_NOT_FOUND; a device that is not the user's, DEVICE_NOT_FOUND.
  const { app } = await ownedUser(deps, owner, appId, userId);
  if (!(await deps.store.deleteDevice(app.id, userId, deviceId, deps.clock.now(), actor))) {
    throw new DomainError('DEVICE_NOT_FOUND', 'no such device');
  }
}

export async function revokeSessions(deps: Pick<Deps, 'clock'> & { store: ApplicationStore & UserStore }, owner: OwnerRecord, appId: string, userId: string, actor: Actor): Promise<number> {
  const { app } = await ownedUser(deps, owner, appId, userId);
  return deps.store.revokeUserSessions(app.id, userId, deps.clock.now(), actor);
}

/** Lifts every sign-in lock on the user, at every address (docs/choices.md, "Throttling"). */
export async function unlockUser(deps: { store: ApplicationStore & LicenseStore & ThrottleStore & UserStore }, owner: OwnerRecord, appId: string, userId: string): Promise<void> {
  const { app, user } = await ownedUser(deps, owner, appId, userId);
  const license = user.licenseId === null ? null : await deps.store.findLicenseById(app.id, user.licenseId);
  await deps.store.unlockAccounts(app.id, userAccountKeys(user, license?.codeDigest ?? null));
}

/** One bulk change to many users; ids that are not users of the application are skipped. */
export async function adjustMemberships(
  deps: Pick<Deps, 'clock' | 'ids'> & { store: ApplicationStore & UserStore },
  owner: OwnerRecord,
  appId: string,
  userIds: string[],
  change: BulkChange,
  actor: Actor,
): Promise<number> {
  const app = await ownedApplication(deps, owner, appId);
  if (userIds.length < 1 || userIds.length > ADJUSTMENT_USERS_MAX) {
    throw validationError('user_ids', `must list 1 to ${ADJUSTMENT_USERS_MAX} users`);
  }
  const reason = change.reason === undefined || change.reason === null || change.reason.trim() === '' ? null : change.reason;
  const normalized: BulkChange = { ...change, reason };
  validateBulkChange(normalized);
  return deps.store.bulkAdjust(app.id, userIds, normalized, deps.clock.now(), () => deps.ids.uuid(), actor);
}
