import type { Actor } from './events/actor.js';
import { canonicalLicenseCode, licenseLoginRefusal } from '../domain/license.js';
import { presentedPassword, usernameKey } from '../domain/credentials-policy.js';
import { DomainError } from '../domain/errors.js';
import { addressBucket } from '../domain/ip-address.js';
import type { Caller, Deps } from './deps.js';
import { withPasswordWork } from './password-work.js';
import type { LicenseStore } from './ports/license-store.js';
import type { AuthAttempt, ThrottleStore } from './ports/throttle-store.js';
import type { UserStore } from './ports/user-store.js';
import type { EventStore } from './ports/event-store.js';
import { authLocked } from './events/refusals.js';
import { toIso } from '../domain/time.js';
import type { ApplicationRecord, LicenseRecord, UserRecord } from './records.js';

const invalidCredentials = () => new DomainError('INVALID_CREDENTIALS', 'invalid credentials');

/** How long a check waits for a turn on a busy account before it is refused. */
const BUSY_WAIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a throttled credential check uses. */
export type ThrottleDeps = Pick<Deps, 'clock' | 'limits'> & { store: ThrottleStore & EventStore };

/**
 * Runs one credential check under the throttle: a turn is reserved before any password is
 * verified (waiting while the account's turns are all taken by checks in flight) and settled
 * afterwards as a success or a failure. Parallel guesses therefore cannot verify more passwords
 * than the threshold allows, while parallel correct logins only queue. Past the address's limit
 * or the account's hourly one, a caller `familiar` to the account (signed in from the address
 * before, or on a registered device) is still served; that is asked only then, so ordinary
 * checks pay nothing for it.
 */
export async function throttledCheck<T>(deps: ThrottleDeps, claimed: AuthAttempt, check: () => Promise<T | null>, actor: Actor, familiar?: () => Promise<boolean>): Promise<T | null> {
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
  let result: T | null = null;
  try {
    result = await check();
    return result;
  } finally {
    // An error mid-check settles as a failure: the turn is never leaked, and never free.
    const now = deps.clock.now();
    const locked = await deps.store.settleAuthAttempt({ ...attempt, now }, result === null ? 'failure' : 'success', deps.limits);
    // An account lockout is a security outcome of the application's log; owner sign-in has none.
    if (locked !== null && attempt.accountKey !== null && attempt.applicationId !== CONSOLE_THROTTLE_SCOPE) {
      await deps.store.recordEvent(authLocked(attempt.applicationId, attempt.accountKey, attempt.ip, toIso(locked.lockedUntil)), now, actor);
    }
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

/**
 * Every throttle account a user signs in or activates under: the password, the code guesses at
 * activation, and the license code of a license-code user.
 */
export function userAccountKeys(user: UserRecord, licenseCodeDigest: string | null): string[] {
  const keys = [accountKeys.user(user.usernameKey), accountKeys.activation(user.usernameKey)];
  return licenseCodeDigest === null ? keys : [...keys, accountKeys.license(licenseCodeDigest)];
}

/**
 * Whether the claimed account exists and the caller is familiar to it: signed in from the
 * caller's address before, or presenting a hardware id registered to it.
 */
export async function signedInFrom(deps: { store: UserStore }, user: UserRecord | null, caller: Caller, hardwareId: string | null = null): Promise<boolean> {
  if (user === null) return false;
  if (await deps.store.hasSignedInFrom(user.id, caller.ip)) return true;
  return hardwareId !== null && (await deps.store.hasDevice(user.id, hardwareId));
}

/** What a password check uses: the throttle, the password work and the accounts. */
export type PasswordCheckDeps = ThrottleDeps & Pick<Deps, 'hasher'> & { store: UserStore };

/**
 * Username and password, with the same answer and the same work for an unknown user. `hardwareId`:
 * the device the caller presents, which makes it familiar when registered to the user.
 */
export async function checkPassword(
  deps: PasswordCheckDeps,
  app: ApplicationRecord,
  username: string,
  password: string,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null = null,
): Promise<UserRecord> {
  const pw = presentedPassword(password);
  const key = usernameKey(username);
  const attempt = { applicationId: app.id, accountKey: accountKeys.user(key), ip: caller.ip, now: deps.clock.now() };
  return withPasswordWork(deps, app.id, async (work) => {
    const user = await throttledCheck(
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
    if (user === null || user.passwordHash === null) throw invalidCredentials();
    if (deps.hasher.needsRehash(user.passwordHash)) {
      await deps.store.updatePasswordHash(user.id, await work.hash(pw));
    }
    return user;
  });
}

export function licenseDigest(deps: Pick<Deps, 'secrets'>, code: string): string | null {
  const canonical = canonicalLicenseCode(code);
  return canonical === null ? null : deps.secrets.digest(canonical);
}

/** What a license-code check uses: the throttle, the code's digest, the license and its user. */
export type LicenseLoginDeps = ThrottleDeps & Pick<Deps, 'secrets'> & { store: LicenseStore & UserStore };

/** A license code as the credential of the license-code user who signed up with it. */
export async function checkLicenseLogin(
  deps: LicenseLoginDeps,
  app: ApplicationRecord,
  code: string,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null = null,
): Promise<{ user: UserRecord; license: LicenseRecord }> {
  const digest = licenseDigest(deps, code);
  const attempt = { applicationId: app.id, accountKey: accountKeys.license(digest), ip: caller.ip, now: deps.clock.now() };
  let presented: LicenseRecord | null = null;
  const holder = async (): Promise<{ user: UserRecord; license: LicenseRecord } | null> => {
    if (digest === null) return null;
    presented = await deps.store.findLicenseByDigest(app.id, digest);
    if (presented === null) return null;
    const user = await deps.store.findUserByLicenseId(app.id, presented.id);
    return user === null ? null : { user, license: presented };
  };
  const found = await throttledCheck(deps, attempt, holder, actor, async () => signedInFrom(deps, (await holder())?.user ?? null, caller, hardwareId));
  if (found === null) throw licenseLoginRefusal(presented);
  return found;
}

/** The credentials a login (and a device reset) presents: a password, or a license-code user's code. */
export type LoginCredentials = { username: string; password: string } | { code: string };

/** Either credential check, as a login makes it (throttled, with the same refusals). */
export async function checkCredentials(
  deps: PasswordCheckDeps & LicenseLoginDeps,
  app: ApplicationRecord,
  credentials: LoginCredentials,
  caller: Caller,
  actor: Actor,
  hardwareId: string | null = null,
): Promise<UserRecord> {
  const c = credentials;
  return 'code' in c ? (await checkLicenseLogin(deps, app, c.code, caller, actor, hardwareId)).user : checkPassword(deps, app, c.username, c.password, caller, actor, hardwareId);
}
