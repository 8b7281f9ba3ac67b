import type { Deps } from './deps.js';
import type { ThrottleStore } from './ports/throttle-store.js';

/** How often the server purges the throttle counters it may forget (docs/choices.md, "Throttling"). */
export const THROTTLE_PURGE_EVERY_MS = 10 * 60_000;

/** One scheduled purge: ended windows and idle counters go, so names that never existed leave nothing behind. */
export async function purgeThrottleCounters(deps: Pick<Deps, 'clock'> & { store: ThrottleStore }): Promise<{ deleted: number; kept: number }> {
  return deps.store.purgeThrottle(deps.clock.now());
}
