import type { Actor } from './events/actor.js';
import { canonicalLicenseCode, licenseLoginRefusal } from '../domain/license.js';
import { presentedPassword, usernameKey } from '../domain/credentials-policy.js';
import { DomainError } from '../domain/errors.js';
import { addressBucket } from '../domain/ip-address.js';
import type { Caller, Deps } from './deps.js';
import { withPasswordWork } from './password-work.js';
import type { LicenseStore } from './ports/license-store.js';
import type { AttemptOutcome } from '../domain/auth-throttle.js';
import type { AuthAttempt, SucceededTurn, ThrottleStore } from './ports/throttle-store.js';
import type { UserStore } from './ports/user-store.js';
import type { EventStore } from './ports/event-store.js';
import { authLocked } from './events/refusals.js';
import { toIso } from '../domain/time.js';
import type { ApplicationRecord, LicenseRecord, UserRecord } from './records.js';
import { licenseHolder } from './license-holder.js';

const invalidCredentials = () => new DomainError('INVALID_CREDENTIALS', 'invalid credentials');

/** How long a check waits for a turn on a busy account before it is refused. */
const BUSY_WAIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a throttled credential check uses. */
export type ThrottleDeps = Pick<Deps, 'clock' | 'limits'> & { store: ThrottleStore & EventStore };

/** Reserves a turn for one credential check before any password is verified, waiting while the
 * account is busy. `familiar` is asked only once a limit refuses, so ordinary checks pay nothing for
 * it (docs/choices.md, "Throttling"). Returns the attempt as counted, for settling. */
async function reserveTurn(deps: ThrottleDeps, claimed: AuthAttempt, familiar?: () => Promise<boolean>): Promise<AuthAttempt> {
  // Real time, not the service clock: this bounds how long a request waits, whatever time it is.
  const giveUpAt = Date.now() + BUSY_WAIT_MS;
  // Addresses are counted by addressBucket (IPv6 by /64).
  const attempt = { ...claimed, ip: addressBucket(claimed.ip) };
  let known = false;
  const reserve = async () => {
    try {
      return await deps.store.reserveAuthAttempt({ ...attempt, familiar: known, now: deps.clock.now() }, deps.limits);
    } catch (e) {
      const refused = e instanceof DomainError && (e.code === 'RATE_LIMITED' || e.code === 'ACCOUNT_LOCKED');
      if (!refused || known || familiar === undefined || !(await familiar())) throw e;
      known = true;
      return deps.store.reserveAuthAttempt({ ...attempt, familiar: true, now: deps.clock.now() }, deps.limits);
    }
  };
  while ((await reserve()) === 'busy') {
    if (Date.now() > giveUpAt) {
      throw new DomainError('ACCOUNT_LOCKED', 'too many attempts in progress for this account; try again shortly', { retryAfterSeconds: 1 });
    }
    await sleep(5 + Math.random() * 20);
  }
  return attempt;
}

/** Settles a reserved turn on its own, recording the lockout a failure made. */
async function settleTurn(deps: ThrottleDeps, attempt: AuthAttempt, outcome: AttemptOutcome, actor: Actor): Promise<void> {
  const now = deps.clock.now();
  const locked = await deps.store.settleAuthAttempt({ ...attempt, now }, outcome, deps.limits);
  if (locked !== null) await recordLockout(deps, attempt, locked.lockedUntil, now, actor);
}

/** Records that a failure settled on `attempt` locked its account at the network until `lockedUntil`. */
export async function recordLockout(deps: ThrottleDeps, attempt: AuthAttempt, lockedUntil: number, now: number, actor: Actor): Promise<void> {
  // An account lockout is a security outcome of the application's log; owner sign-in has none.
  if (attempt.accountKey !== null && attempt.applicationId !== CONSOLE_THROTTLE_SCOPE) {
    await deps.store.recordEvent(authLocked(attempt.applicationId, attempt.accountKey, attempt.ip, toIso(lockedUntil)), now, actor);
  }
}

/** A check that succeeded with its turn still reserved: what it found, and the turn to settle. */
export interface HeldSuccess<T> {
  found: T;
  turn: AuthAttempt;
}

/** One credential check under the throttle, its turn reserved before it runs. A failure (or an
 * error mid-check) is settled here, so the turn is never leaked and never free; a success comes
 * back with its turn still reserved, for the write it lets through to settle (withTurn). */
async function heldCheck<T>(deps: ThrottleDeps, claimed: AuthAttempt, check: () => Promise<T | null>, actor: Actor, familiar?: () => Promise<boolean>): Promise<HeldSuccess<T> | null> {
  const turn = await reserveTurn(deps, claimed, familiar);
  let found: T | null = null;
  try {
    found = await check();
  } finally {
    if (found === null) await settleTurn(deps, turn, 'failure', actor);
  }
  return found === null ? null : { found, turn };
}

/** Runs one credential check under the throttle: a turn is reserved before any password is
 * verified and settled afterwards as a success or a failure. Parallel guesses therefore cannot
 * verify more passwords than the threshold allows, while parallel correct logins only queue. */
export async function throttledCheck<T>(deps: ThrottleDeps, claimed: AuthAttempt, check: () => Promise<T | null>, actor: Actor, familiar?: () => Promise<boolean>): Promise<T | null> {
  const held = await heldCheck(deps, claimed, check, actor, familiar);
  return held === null ? null : settled(deps, held, actor);
}

/** What a held check found, its turn settled as the success it was. */
async function settled<T>(deps: ThrottleDeps, held: HeldSuccess<T>, actor: Actor): Promise<T> {
  await settleTurn(deps, held.turn, 'success', actor);
  return held.found;
}

/** Runs what a successful check lets through, handing it the turn to settle in its own write
 * (SucceededTurn). When it is refused instead, the turn is settled as the success it was. */
export async function withTurn<T>(deps: ThrottleDeps, turn: AuthAttempt, actor: Actor, work: (settled: SucceededTurn) => Promise<T>): Promise<T> {
  try {
    return await work({ attempt: { ...turn, now: deps.clock.now() }, limits: deps.limits });
  } catch (e) {
    await settleTurn(deps, turn, 'success', actor);
    throw e;
  }
}

/** The throttle scope of owner sign-in, beside the application ids that scope client checks. */
export const CONSOLE_THROTTLE_SCOPE = 'console';

export const accountKeys = {
  owner: (email: string) => `owner:${email}`,
  user: (key: string) => `user:${key}`,
  /** License codes presented by an account at activation: apart from its password's counter. */
  activation: (key: string) => `activation:${key}`,
  license: (digest: string | null) => `license:${digest ?? 'malformed'}`,
};

/** Every throttle account a user signs in or activates under: the password, the code guesses at
 * activation, and the license code of a license-code user. */
export function userAccountKeys(user: UserRecord, licenseCodeDigest: string | null): string[] {
  const keys = [accountKeys.user(user.usernameKey), accountKeys.activation(user.usernameKey)];
  return licenseCodeDigest === null ? keys : [...keys, accountKeys.license(licenseCodeDigest)];
}

/** Whether the claimed account exists and the caller is familiar to it: signed in from the
 * caller's address before, or presenting a hardware id registered to it. */
export async function signedInFrom(deps: { store: UserStore }, user: UserRecord | null, caller: Caller, hardwareId: string | null = null): Promise<boolean> {
  if (user === null) return false;
  if (await deps.store.hasSignedInFrom(user.id, caller.ip)) return true;
  return hardwareId !== null && (await deps.store.hasDevice(user.id, hardwareId));
}

/** What a password check uses: the throttle, the password work and the accounts. */
export type PasswordCheckDeps = ThrottleDeps & Pick<Deps, 'hasher'> & { store: UserStore };

/** Username and password, with the same answer and the same work for an unknown user. `hardwareId`:
 * the device the caller presents, which makes it familiar when registered to the user. The user
 * comes back with the check's turn still reserved (HeldSuccess, withTurn). */
export async function verifyPassword(
  deps: PasswordCheckDeps,
  app: ApplicationRecord,
  username: string,
  password: string,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null,
): Promise<HeldSuccess<UserRecord>> {
  const pw = presentedPassword(password);
  const key = usernameKey(username);
  const attempt = { applicationId: app.id, accountKey: accountKeys.user(key), ip: caller.ip, now: deps.clock.now() };
  return withPasswordWork(deps, app.id, async (work) => {
    const held = await heldCheck(
      deps,
      attempt,
      async () => {
        const found = await deps.store.findUserByUsernameKey(app.id, key);
        if (found === null || found.passwordHash === null) {
          await work.verifyDummy(pw);
          return null;
        }
        return (await work.verify(found.passwordHash, pw)) ? found : null;
      },
      actor,
      async () => signedInFrom(deps, await deps.store.findUserByUsernameKey(app.id, key), caller, hardwareId),
    );
    if (held === null || held.found.passwordHash === null) throw invalidCredentials();
    if (deps.hasher.needsRehash(held.found.passwordHash)) {
      await withTurn(deps, held.turn, actor, async () => deps.store.updatePasswordHash(held.found.id, await work.hash(pw)));
    }
    return held;
  });
}

/** verifyPassword with its turn settled: the check as every caller but a token login makes it. */
export async function checkPassword(
  deps: PasswordCheckDeps,
  app: ApplicationRecord,
  username: string,
  password: string,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null = null,
): Promise<UserRecord> {
  return settled(deps, await verifyPassword(deps, app, username, password, caller, actor, hardwareId), actor);
}

export function licenseDigest(deps: Pick<Deps, 'secrets'>, code: string): string | null {
  const canonical = canonicalLicenseCode(code);
  return canonical === null ? null : deps.secrets.digest(canonical);
}

/** What a license-code check uses: the throttle, the code's digest, the license and its user. */
export type LicenseLoginDeps = ThrottleDeps & Pick<Deps, 'secrets'> & { store: LicenseStore & UserStore };

/** A license code as the credential of the license-code user who signed up with it, its turn still reserved. */
async function verifyLicenseLogin(
  deps: LicenseLoginDeps,
  app: ApplicationRecord,
  code: string,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null,
): Promise<HeldSuccess<{ user: UserRecord; license: LicenseRecord }>> {
  const digest = licenseDigest(deps, code);
  const attempt = { applicationId: app.id, accountKey: accountKeys.license(digest), ip: caller.ip, now: deps.clock.now() };
  let presented: LicenseRecord | null = null;
  let several = false;
  const holder = async (): Promise<{ user: UserRecord; license: LicenseRecord } | null> => {
    if (digest === null) return null;
    presented = await deps.store.findLicenseByDigest(app.id, digest);
    if (presented === null) return null;
    const found = await licenseHolder(deps.store, app.id, presented.id, hardwareId);
    if (found.user === null) several = found.several;
    return found.user === null ? null : { user: found.user, license: presented };
  };
  const held = await heldCheck(deps, attempt, holder, actor, async () => signedInFrom(deps, (await holder())?.user ?? null, caller, hardwareId));
  // Of several holders, none named by the machine: the code is right, the holder unproven.
  if (held === null) throw several ? invalidCredentials() : licenseLoginRefusal(presented);
  return held;
}

/** A license code as the credential of the license-code user who signed up with it. */
export async function checkLicenseLogin(
  deps: LicenseLoginDeps,
  app: ApplicationRecord,
  code: string,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null = null,
): Promise<{ user: UserRecord; license: LicenseRecord }> {
  return settled(deps, await verifyLicenseLogin(deps, app, code, caller, actor, hardwareId), actor);
}

/** The credentials a login (and a device reset) presents: a password, or a license-code user's code. */
export type LoginCredentials = { username: string; password: string } | { code: string };

/** Either credential check, as a token login makes it: the user, with the check's turn still reserved (withTurn). */
export async function verifyCredentials(
  deps: PasswordCheckDeps & LicenseLoginDeps,
  app: ApplicationRecord,
  credentials: LoginCredentials,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null = null,
): Promise<HeldSuccess<UserRecord>> {
  const c = credentials;
  if (!('code' in c)) return verifyPassword(deps, app, c.username, c.password, caller, actor, hardwareId);
  const held = await verifyLicenseLogin(deps, app, c.code, caller, actor, hardwareId);
  return { found: held.found.user, turn: held.turn };
}

/** Either credential check, as a login makes it (throttled, with the same refusals). */
export async function checkCredentials(
  deps: PasswordCheckDeps & LicenseLoginDeps,
  app: ApplicationRecord,
  credentials: LoginCredentials,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null = null,
): Promise<UserRecord> {
  return settled(deps, await verifyCredentials(deps, app, credentials, caller, actor, hardwareId), actor);
}
