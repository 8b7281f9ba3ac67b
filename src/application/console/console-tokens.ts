// An owner's console tokens: which are live, revoking one, and signing out everywhere
// (docs/api.md, Console API: Owners).
import { consoleTokenExpiry, consoleTokenLive } from '../../domain/console-session.js';
import { DomainError } from '../../domain/errors.js';
import type { Instant } from '../../domain/time.js';
import type { Deps } from '../deps.js';
import type { OwnerStore } from '../ports/owner-store.js';
import type { ConsoleTokenKind, ConsoleTokenRecord } from '../records.js';
import type { ConsoleIdentity } from './owners.js';

export interface ConsoleTokenView {
  id: string;
  kind: ConsoleTokenKind;
  createdAt: Instant;
  lastUsedAt: Instant | null;
  /** When it stops working unless used again (Bearer) or at all (browser session). */
  expiresAt: Instant | null;
  /** The token that authenticated this request. */
  current: boolean;
}

/** What listing an owner's live tokens uses. */
type LiveTokenDeps = Pick<Deps, 'clock' | 'console'> & { store: OwnerStore };

async function liveTokens(deps: LiveTokenDeps, ownerId: string): Promise<ConsoleTokenRecord[]> {
  const now = deps.clock.now();
  return (await deps.store.listConsoleTokens(ownerId)).filter((t) => consoleTokenLive(t, now, deps.console.tokenIdleMs));
}

/** `GET /tokens`: the caller's owner's live tokens, oldest first. */
export async function listOwnConsoleTokens(deps: LiveTokenDeps, caller: ConsoleIdentity): Promise<ConsoleTokenView[]> {
  return (await liveTokens(deps, caller.owner.id)).map((t) => ({
    id: t.id,
    kind: t.kind,
    createdAt: t.createdAt,
    lastUsedAt: t.id === caller.token.id ? caller.token.lastUsedAt : t.lastUsedAt,
    expiresAt: consoleTokenExpiry(t.id === caller.token.id ? caller.token : t, deps.console.tokenIdleMs),
    current: t.id === caller.token.id,
  }));
}

/** `DELETE /tokens/{id}`: another owner's token, a revoked or an expired one answer 404 alike. */
export async function revokeOwnConsoleToken(deps: LiveTokenDeps, caller: ConsoleIdentity, tokenId: string): Promise<void> {
  const found = (await liveTokens(deps, caller.owner.id)).some((t) => t.id === tokenId);
  if (!found) throw new DomainError('CONSOLE_TOKEN_NOT_FOUND', 'no such console token');
  await deps.store.revokeConsoleToken(tokenId, deps.clock.now());
}

/** `POST /tokens/revoke_all`: signs the owner out everywhere else, or everywhere; returns how many. */
export async function revokeAllConsoleTokens(deps: Pick<Deps, 'clock'> & { store: OwnerStore }, caller: ConsoleIdentity, includeCurrent: boolean): Promise<number> {
  return deps.store.revokeConsoleTokensOf(caller.owner.id, includeCurrent ? null : caller.token.id, deps.clock.now());
}
