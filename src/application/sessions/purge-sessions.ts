import { DAY_MS } from '../../domain/overview.js';
import type { Deps } from '../deps.js';
import type { BanStore } from '../ports/ban-store.js';
import type { SessionStore } from '../ports/session-store.js';

/** Deletes sessions that ended more than `retentionDays` ago (GATEHOUSE_SESSION_RETENTION_DAYS,
 * docs/configuration.md), so session history stays bounded however often users log in. The
 * overview's login counts are kept per day apart from the sessions, so they outlive the purge. */
export function purgeEndedSessions(deps: Pick<Deps, 'clock'> & { store: SessionStore }, retentionDays: number): Promise<number> {
  return deps.store.purgeEndedSessions(deps.clock.now() - retentionDays * DAY_MS);
}

/** Deletes bans past their expiry (propagated IP bans): they no longer match or list. */
export function purgeExpiredBans(deps: Pick<Deps, 'clock'> & { store: BanStore }): Promise<number> {
  return deps.store.purgeExpiredBans(deps.clock.now());
}
