// Links committed events into their hash chains in the background, so a write never waits on a
// per-application chain lock (docs/events.md, The hash chain; docs/choices.md, "Chaining after the
// commit"). Any instance may run one; the store skips an application another is linking.
import type { Deps } from '../deps.js';
import type { EventStore } from '../ports/event-store.js';
import { SYSTEM } from './actor.js';

/** Events linked per store call: one transaction per application holds at most this many. */
const BATCH = 500;

export interface AuditChainer {
  start(): void;
  /** Waits for a running pass, then stops polling. */
  stop(): Promise<void>;
  /** Links everything pending (tests, `audit verify`); how many entries it linked. */
  drain(): Promise<number>;
}

export function createAuditChainer(
  deps: Pick<Deps, 'clock'> & { store: Pick<EventStore, 'chainEvents' | 'reanchorUnkeyedChains'> },
  options: { pollMs: number; onError?: (error: unknown) => void },
): AuditChainer {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
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

  /** One pass at a time: a poll while one runs is skipped (the pass links what the poll would have). */
  function pass(): void {
    if (running !== null) return;
    running = drain().then(
      () => {},
      (error: unknown) => options.onError?.(error),
    );
    void running.finally(() => (running = null));
  }

  return {
    start() {
      if (timer !== null) return;
      timer = setInterval(pass, options.pollMs);
      timer.unref();
      pass();
    },
    async stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      await running;
    },
    drain,
  };
}
