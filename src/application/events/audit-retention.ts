// Retention of the audit log (docs/events.md, Retention): GATEHOUSE_AUDIT_RETENTION_DAYS, pruned
// by the server's hourly purge as the system.
import { DAY_MS } from '../../domain/overview.js';
import type { Deps } from '../deps.js';
import type { EventStore } from '../ports/event-store.js';
import { SYSTEM } from './actor.js';

/** Deletes the entries older than `retentionDays`; how many. */
export function pruneAuditLog(deps: Pick<Deps, 'clock'> & { store: Pick<EventStore, 'pruneEvents'> }, retentionDays: number): Promise<number> {
  const now = deps.clock.now();
  return deps.store.pruneEvents(now - retentionDays * DAY_MS, now, SYSTEM);
}
