import { acceptNewPassword, presentedPassword, validateEmail } from '../../domain/credentials-policy.js';
import { DomainError } from '../../domain/errors.js';
import { accountKeys, CONSOLE_THROTTLE_SCOPE, throttledCheck } from '../credential-checks.js';
import { keyPrefixes, type Caller, type Deps } from '../deps.js';
import type { OwnerRecord } from '../ports.js';

export interface OwnerSession {
  owner: { id: string; email: string };
  token: string;
}

async function issueConsoleToken(deps: Deps, owner: OwnerRecord): Promise<OwnerSession> {
  const token = deps.secrets.issue(keyPrefixes.consoleToken);
  await deps.store.createConsoleToken({
    id: deps.ids.uuid(),
    ownerId: owner.id,
    digest: deps.secrets.digest(token),
    createdAt: deps.clock.now(),
    revokedAt: null,
  });
  return { owner: { id: owner.id, email: owner.email }, token };
}

/** The CLI bootstrap: a new owner and a first console token. */
export async function createOwner(deps: Deps, email: string, password: string): Promise<OwnerSession> {
  const owner: OwnerRecord = {
    id: deps.ids.uuid(),
    email: validateEmail(email),
    passwordHash: await deps.hasher.hash(acceptNewPassword(password, 8)),
    createdAt: deps.clock.now(),
  };
  await deps.store.createOwner(owner);
  return issueConsoleToken(deps, owner);
}

/**
 * Console sign-in, throttled like client logins (per email and per address), and an unknown email
 * costs the same and answers the same as a wrong password.
 */
export async function loginOwner(deps: Deps, email: string, password: string, caller: Caller): Promise<OwnerSession> {
  const pw = presentedPassword(password);
  const key = email.trim().toLowerCase();
  const attempt = { applicationId: CONSOLE_THROTTLE_SCOPE, accountKey: accountKeys.owner(key), ip: caller.ip, now: deps.clock.now() };
  const owner = await throttledCheck(deps, attempt, async () => {
    const found = await deps.store.findOwnerByEmail(key);
    if (found === null) {
      await deps.hasher.verifyDummy(pw);
      return null;
    }
    return (await deps.hasher.verify(found.passwordHash, pw)) ? found : null;
  });
  if (owner === null) throw new DomainError('INVALID_CREDENTIALS', 'invalid email or password');
  if (deps.hasher.needsRehash(owner.passwordHash)) await deps.store.updateOwnerPasswordHash(owner.id, await deps.hasher.hash(pw));
  return issueConsoleToken(deps, owner);
}

/** The owner behind a console token. */
export async function authenticateConsole(deps: Deps, token: string | undefined): Promise<OwnerRecord> {
  const invalid = () => new DomainError('INVALID_CONSOLE_TOKEN', 'invalid or revoked console token');
  if (!token || token.length > 200) throw invalid();
  const digest = deps.secrets.digest(token);
  const stored = await deps.store.findConsoleToken(digest);
  if (stored === null || stored.revokedAt !== null || !deps.secrets.sameDigest(stored.digest, digest)) throw invalid();
  const owner = await deps.store.findOwnerById(stored.ownerId);
  if (owner === null) throw invalid();
  return owner;
}

/** Revokes the presented console token; later requests with it answer 401. */
export async function logoutOwner(deps: Deps, token: string | undefined): Promise<void> {
  await authenticateConsole(deps, token);
  const stored = await deps.store.findConsoleToken(deps.secrets.digest(token as string));
  if (stored !== null) await deps.store.revokeConsoleToken(stored.id, deps.clock.now());
}
