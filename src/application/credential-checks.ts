import { canonicalLicenseCode } from '../domain/license.js';
import { presentedPassword, usernameKey } from '../domain/credentials-policy.js';
import { DomainError } from '../domain/errors.js';
import type { Caller, Deps } from './deps.js';
import type { ApplicationRecord, AuthAttempt, LicenseRecord, UserRecord } from './ports.js';

const invalidCredentials = () => new DomainError('INVALID_CREDENTIALS', 'invalid credentials');

/**
 * Runs one credential check under the throttle: the attempt is reserved (counted as a failure)
 * before any password is verified, and forgiven only when the check succeeds. Parallel guesses
 * therefore cannot verify more passwords than the limits allow.
 */
export async function throttledCheck<T>(deps: Deps, attempt: AuthAttempt, check: () => Promise<T | null>): Promise<T | null> {
  await deps.store.reserveAuthAttempt(attempt, deps.limits);
  const result = await check();
  if (result !== null) await deps.store.settleAuthSuccess(attempt);
  return result;
}

export const accountKeys = {
  user: (key: string) => `user:${key}`,
  license: (digest: string | null) => `license:${digest ?? 'malformed'}`,
};

/** Username and password, with the same answer and the same work for an unknown user. */
export async function checkPassword(
  deps: Deps,
  app: ApplicationRecord,
  username: string,
  password: string,
  caller: Caller,
): Promise<UserRecord> {
  const pw = presentedPassword(password);
  const key = usernameKey(username);
  const attempt = { applicationId: app.id, accountKey: accountKeys.user(key), ip: caller.ip, now: deps.clock.now() };
  const user = await throttledCheck(deps, attempt, async () => {
    const found = await deps.store.findUserByUsernameKey(app.id, key);
    if (found === null || found.passwordHash === null) {
      await deps.hasher.verifyDummy(pw);
      return null;
    }
    return (await deps.hasher.verify(found.passwordHash, pw)) ? found : null;
  });
  if (user === null || user.passwordHash === null) throw invalidCredentials();
  if (deps.hasher.needsRehash(user.passwordHash)) {
    await deps.store.updatePasswordHash(user.id, await deps.hasher.hash(pw));
  }
  return user;
}

export function licenseDigest(deps: Deps, code: string): string | null {
  const canonical = canonicalLicenseCode(code);
  return canonical === null ? null : deps.secrets.digest(canonical);
}

/** A license code as the credential of the license-code user who signed up with it. */
export async function checkLicenseLogin(
  deps: Deps,
  app: ApplicationRecord,
  code: string,
  caller: Caller,
): Promise<{ user: UserRecord; license: LicenseRecord }> {
  const digest = licenseDigest(deps, code);
  const attempt = { applicationId: app.id, accountKey: accountKeys.license(digest), ip: caller.ip, now: deps.clock.now() };
  const found = await throttledCheck(deps, attempt, async () => {
    if (digest === null) return null;
    const license = await deps.store.findLicenseByDigest(app.id, digest);
    if (license === null) return null;
    const user = await deps.store.findUserByLicenseId(app.id, license.id);
    return user === null ? null : { user, license };
  });
  if (found === null) throw invalidCredentials();
  return found;
}
