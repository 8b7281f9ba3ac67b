import { type BanProof, bannedError, decideBans, identifierKeys, type RequestIdentifiers, unproven } from '../domain/bans.js';
import { isDomainError } from '../domain/errors.js';
import { addressBucket } from '../domain/ip-address.js';
import type { Deps } from './deps.js';
import type { BanStore } from './ports/ban-store.js';
import type { EventStore } from './ports/event-store.js';
import type { ThrottleStore } from './ports/throttle-store.js';
import { type Actor, SYSTEM } from './events/actor.js';
import { requestRefused } from './events/refusals.js';
import type { ApplicationRecord } from './records.js';

/** What the ban check uses: the bans, the time and ids of the bans it propagates, and the refusals' budget. */
export type BanGuardDeps = Pick<Deps, 'clock' | 'ids' | 'bans' | 'limits'> & { store: BanStore & EventStore & ThrottleStore };

/** The throttle scope that budgets the audit entries of ban refusals per address, apart from credential failures. */
export const banRefusalScope = (applicationId: string): string => `ban-refusals:${applicationId}`;

/** Ban refusals from one address recorded per throttle window (IP_WINDOW_MS); the rest are answered alone. */
export const BAN_REFUSALS_RECORDED = 10;

/** Whether this refusal may still write its audit entry: a banned client polling would otherwise
 * add a row per request. Counted per address like signature refusals; one with no address (an
 * owner's action) always is. */
async function refusalRecorded(deps: BanGuardDeps, applicationId: string, ip: string | null | undefined, now: number): Promise<boolean> {
  if (ip === undefined || ip === null) return true;
  const budget = { ...deps.limits, ipFailureLimit: BAN_REFUSALS_RECORDED };
  try {
    await deps.store.reserveAuthAttempt({ applicationId: banRefusalScope(applicationId), accountKey: null, ip: addressBucket(ip), now }, budget);
    return true;
  } catch (e) {
    if (isDomainError(e) && e.code === 'RATE_LIMITED') return false;
    throw e;
  }
}

/** Refuses a request that carries a banned identifier, propagating first where the application
 * says so (docs/choices.md, "Bans"). The proof is asked for only when a ban matched: the common
 * path costs one lookup, or none while ban-memory.ts remembers it. */
export async function guardBans(deps: BanGuardDeps, app: ApplicationRecord, ids: RequestIdentifiers, actor: Actor, proof: () => Promise<BanProof> = async () => unproven): Promise<void> {
  const refusal = await banRefusal(deps, app, ids, actor, proof);
  if (refusal !== null) await refusal();
}

/** guardBans in two halves: what it reads decides here; the refusal (its audit entry, the bans it
 * propagates, BANNED) comes back to be made later, or null where nothing is banned. */
export async function banRefusal(
  deps: BanGuardDeps,
  app: ApplicationRecord,
  ids: RequestIdentifiers,
  actor: Actor,
  proof: () => Promise<BanProof> = async () => unproven,
): Promise<(() => Promise<never>) | null> {
  const keys = identifierKeys(ids);
  if (keys.length === 0) return null;
  const now = deps.clock.now();
  const matching = await deps.bans.matching(app, keys, now);
  if (matching.length === 0) return null;
  const s = app.settings;
  const policy = { enabled: s.banPropagation, toAddresses: s.banPropagationToAddresses, ipBanHours: s.propagatedIpBanHours };
  const decision = decideBans(ids, matching, policy, now, policy.enabled ? await proof() : unproven);
  if (!decision.banned) return null;
  return async () => {
    // The refused attempt, as the caller; the bans it propagates, as the system (docs/events.md, Actors).
    const hit = matching[0]!;
    if (await refusalRecorded(deps, app.id, ids.ip, now)) {
      await deps.store.recordEvent(requestRefused(app.id, 'BANNED', { type: 'ban', id: hit.id, label: null }, { matched_ban_ids: matching.map((m) => m.id) }), now, actor);
    }
    if (decision.propagate.length > 0) {
      await deps.store.addBans(
        app.id,
        decision.propagate.map((p) => ({
          ...p,
          id: deps.ids.uuid(),
          applicationId: app.id,
          reason: 'propagated: seen with a banned identifier',
          createdAt: now,
        })),
        now,
        { ...SYSTEM, ip: actor.ip },
      );
    }
    throw bannedError();
  };
}
