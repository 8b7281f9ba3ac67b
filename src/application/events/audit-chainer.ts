// Links committed events into their hash chains in the background, so a write never waits on a
// per-application chain lock (docs/events.md, The hash chain; docs/choices.md, "Chaining after the
// commit"). Any instance may run one; the store skips an application another is linking.
import type { Deps } from '../deps.js';
import type { EventStore } from '../ports/event-store.js';
import { type PeriodicPasses, periodicPasses } from '../periodic-passes.js';
import { SYSTEM } from './actor.js';

/** Events linked per store call: one transaction per application holds at most this many. */
const BATCH = 500;

export function createAuditChainer(
  deps: Pick<Deps, 'clock'> & { store: Pick<EventStore, 'chainEvents' | 'reanchorUnkeyedChains'> },
  options: { pollMs: number; onError?: (error: unknown) => void },
): PeriodicPasses {
  let reanchored = false;

  async function drain(): Promise<number> {
    // Once per process: chains linked before keying get a keyed entry that covers them.
    if (!reanchored) {
      await deps.store.reanchorUnkeyedChains(deps.clock.now(), SYSTEM);
      reanchored = true;
    }
    let total = 0;
    for (;;) {
      const linked = await deps.store.chainEvents(BATCH);
      total += linked;
      if (linked < BATCH) return total;
    }
  }

  return periodicPasses(drain, options);
}
