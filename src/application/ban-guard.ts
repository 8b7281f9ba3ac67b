import { bannedError, decideBans, identifierKeys, type RequestIdentifiers } from '../domain/bans.js';
import type { Deps } from './deps.js';
import type { ApplicationRecord } from './ports.js';

/**
 * Refuses a request that carries a banned identifier. With the application's ban propagation on,
 * the other identifiers the request carried are banned too before it is refused.
 */
export async function guardBans(deps: Deps, app: ApplicationRecord, ids: RequestIdentifiers): Promise<void> {
  const keys = identifierKeys(ids);
  if (keys.length === 0) return;
  const matching = await deps.store.findMatchingBans(app.id, keys);
  if (matching.length === 0) return;
  const decision = decideBans(ids, matching, app.settings.banPropagation);
  if (!decision.banned) return;
  if (decision.propagate.length > 0) {
    const now = deps.clock.now();
    await deps.store.addBans(
      app.id,
      decision.propagate.map((k) => ({
        ...k,
        id: deps.ids.uuid(),
        applicationId: app.id,
        reason: 'propagated: seen with a banned identifier',
        createdAt: now,
      })),
      now,
    );
  }
  throw bannedError();
}
