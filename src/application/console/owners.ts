import type { Actor } from '../events/actor.js';
import type { ApplicationStore } from '../ports/application-store.js';
import { ownerSignedIn } from '../events/refusals.js';
import { consoleTokenLive, consoleTokenNeedsTouch } from '../../domain/console-session.js';
import { acceptNewPassword, presentedPassword, validateEmail } from '../../domain/credentials-policy.js';
import { DomainError } from '../../domain/errors.js';
import type { Instant } from '../../domain/time.js';
import { accountKeys, CONSOLE_THROTTLE_SCOPE, throttledCheck, type ThrottleDeps } from '../credential-checks.js';
import { keyPrefixes, type Caller, type Deps } from '../deps.js';
import { withPasswordWork } from '../password-work.js';
import type { OwnerStore } from '../ports/owner-store.js';
import type { ThrottleStore } from '../ports/throttle-store.js';
import type { ConsoleTokenRecord, OwnerRecord } from '../records.js';

export interface OwnerSession {
  owner: { id: string; email: string };
  token: string;
}

/** What issuing a console token uses. */
export type TokenIssueDeps = Pick<Deps, 'clock' | 'ids' | 'secrets'> & { store: OwnerStore };

/** What an owner's sign-in uses: the throttle, the password work and the owner's account. */
export type OwnerSignInDeps = ThrottleDeps & Pick<Deps, 'hasher'> & { store: OwnerStore & Pick<ApplicationStore, 'listApplications'> };

/** What reading a presented console token uses. */
export type ConsoleTokenDeps = Pick<Deps, 'clock' | 'console' | 'secrets'> & { store: OwnerStore };

/** A new console token of the owner: a Bearer token (expiresAt null) lives while it is used at least
 * once per idle period; a browser session's cookie token ends at `expiresAt`. */
export async function issueConsoleToken(deps: TokenIssueDeps, owner: OwnerRecord, expiresAt: Instant | null = null): Promise<OwnerSession> {
  const token = deps.secrets.issue(keyPrefixes.consoleToken);
  await deps.store.createConsoleToken({
    id: deps.ids.uuid(),
    ownerId: owner.id,
    digest: deps.secrets.digest(token),
    createdAt: deps.clock.now(),
    revokedAt: null,
    expiresAt,
    kind: expiresAt === null ? 'bearer' : 'cookie',
    lastUsedAt: null,
  });
  return { owner: { id: owner.id, email: owner.email }, token };
}

/** The CLI bootstrap: a new owner and a first console token. */
export async function createOwner(deps: TokenIssueDeps & Pick<Deps, 'hasher'>, email: string, password: string): Promise<OwnerSession> {
  const validEmail = validateEmail(email);
  const accepted = acceptNewPassword(password, 8);
  const owner: OwnerRecord = {
    id: deps.ids.uuid(),
    email: validEmail,
    passwordHash: await withPasswordWork(deps, CONSOLE_THROTTLE_SCOPE, (work) => work.hash(accepted)),
    createdAt: deps.clock.now(),
  };
  await deps.store.createOwner(owner);
  return issueConsoleToken(deps, owner);
}

/** Console sign-in, throttled like client logins (per email and per address), and an unknown email
 * costs the same and answers the same as a wrong password. Returns the owner; the caller issues
 * the kind of token it needs. */
export async function verifyOwnerSignIn(deps: OwnerSignInDeps, email: string, password: string, caller: Caller, actor: Actor, field = 'password'): Promise<OwnerRecord> {
  const pw = presentedPassword(password, field);
  const key = email.trim().toLowerCase();
  const attempt = { applicationId: CONSOLE_THROTTLE_SCOPE, accountKey: accountKeys.owner(key), ip: caller.ip, now: deps.clock.now() };
  // Owners' sign-ins have a lane of their own in the password work queue, beside the applications'.
  return withPasswordWork(deps, CONSOLE_THROTTLE_SCOPE, async (work) => {
    const owner = await throttledCheck(
      deps,
      attempt,
      async () => {
        const found = await deps.store.findOwnerByEmail(key);
        if (found === null) {
          await work.verifyDummy(pw);
          return null;
        }
        return (await work.verify(found.passwordHash, pw)) ? found : null;
      },
      actor,
      async () => {
        const known = await deps.store.findOwnerByEmail(key);
        return known !== null && (await deps.store.hasOwnerSignedInFrom(known.id, caller.ip));
      },
    );
    if (owner === null) throw new DomainError('INVALID_CREDENTIALS', 'invalid email or password');
    if (deps.hasher.needsRehash(owner.passwordHash)) await deps.store.updateOwnerPasswordHash(owner.id, await work.hash(pw));
    await deps.store.recordOwnerIp(owner.id, caller.ip, deps.clock.now());
    await recordSignIn(deps, owner, actor);
    return owner;
  });
}

/** `owner.signed_in`, audit-only, in the log of each of the owner's applications (an owner has no
 * log of their own), as the owner now known, from the caller's address. */
async function recordSignIn(deps: OwnerSignInDeps, owner: OwnerRecord, caller: Actor): Promise<void> {
  const actor: Actor = { type: 'owner', id: owner.id, ip: caller.ip };
  const now = deps.clock.now();
  for (const app of await deps.store.listApplications(owner.id)) await deps.store.recordEvent(ownerSignedIn(app.id, owner, actor.ip === null ? 'cli' : 'console'), now, actor);
}

/** Lifts every sign-in lock on the owner's account, at every address (CLI `owner unlock`). */
export async function unlockOwner(deps: { store: ThrottleStore }, owner: OwnerRecord): Promise<void> {
  await deps.store.unlockAccounts(CONSOLE_THROTTLE_SCOPE, [accountKeys.owner(owner.email.trim().toLowerCase())]);
}

/** CLI `owner reset-password`: a new password without the old one, for an owner who lost it or
 * whose account someone else may hold, so every console token and browser session of the owner is
 * revoked and the sign-in locks are lifted. Returns how many tokens were revoked. */
export async function resetOwnerPassword(deps: Pick<Deps, 'clock' | 'hasher'> & { store: OwnerStore & ThrottleStore }, owner: OwnerRecord, password: string): Promise<number> {
  const hash = await withPasswordWork(deps, CONSOLE_THROTTLE_SCOPE, (work) => work.hash(acceptNewPassword(password, 8)));
  await deps.store.updateOwnerPasswordHash(owner.id, hash);
  const revoked = await deps.store.revokeConsoleTokensOf(owner.id, null, deps.clock.now());
  await unlockOwner(deps, owner);
  return revoked;
}

/** `POST /login`: a console token that lives until revoked (CLI, scripts). */
export async function loginOwner(deps: OwnerSignInDeps & TokenIssueDeps, email: string, password: string, caller: Caller, actor: Actor): Promise<OwnerSession> {
  return issueConsoleToken(deps, await verifyOwnerSignIn(deps, email, password, caller, actor));
}

/** A console token and the owner it admits. */
export interface ConsoleIdentity {
  owner: OwnerRecord;
  token: ConsoleTokenRecord;
}

/** The owner behind a console token that is neither revoked nor expired. */
export async function resolveConsoleToken(deps: ConsoleTokenDeps, token: string | undefined): Promise<ConsoleIdentity> {
  const invalid = () => new DomainError('INVALID_CONSOLE_TOKEN', 'invalid, expired or revoked console token');
  if (!token || token.length > 200) throw invalid();
  const digest = deps.secrets.digest(token);
  const stored = await deps.store.findConsoleToken(digest);
  const now = deps.clock.now();
  if (stored === null || !consoleTokenLive(stored, now, deps.console.tokenIdleMs) || !deps.secrets.sameDigest(stored.digest, digest)) throw invalid();
  const owner = await deps.store.findOwnerById(stored.ownerId);
  if (owner === null) throw invalid();
  if (consoleTokenNeedsTouch(stored, now)) {
    await deps.store.touchConsoleToken(stored.id, now);
    return { owner, token: { ...stored, lastUsedAt: now } };
  }
  return { owner, token: stored };
}

/** Revokes a console token; later requests with it answer 401. */
export async function revokeConsoleToken(deps: Pick<Deps, 'clock'> & { store: OwnerStore }, token: ConsoleTokenRecord): Promise<void> {
  await deps.store.revokeConsoleToken(token.id, deps.clock.now());
}

/** `POST /password`: checks the current password exactly as a sign-in does (same throttle, 401 and
 * 429s), sets the new one and revokes every other console token of the owner, so whoever holds an
 * old one is signed out; the caller's own token keeps working. Returns how many were revoked. */
export async function changeOwnerPassword(deps: OwnerSignInDeps, caller: ConsoleIdentity, input: { currentPassword: string; newPassword: string }, from: Caller, actor: Actor): Promise<number> {
  // A new password that could never be accepted is refused before it costs a sign-in attempt.
  const accepted = acceptNewPassword(input.newPassword, 8, 'new_password');
  const owner = await verifyOwnerSignIn(deps, caller.owner.email, input.currentPassword, from, actor, 'current_password');
  const hash = await withPasswordWork(deps, CONSOLE_THROTTLE_SCOPE, (work) => work.hash(accepted));
  await deps.store.updateOwnerPasswordHash(owner.id, hash);
  return deps.store.revokeConsoleTokensOf(owner.id, caller.token.id, deps.clock.now());
}
