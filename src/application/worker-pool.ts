// How durable background work (file processing, webhook deliveries) runs in an instance: slots each
// take work until none is left, refilled at every poll and wake-up. The work lives in the store under
// leases, so a dying slot only delays it; it passes the system actor itself, whoever woke it.

export interface WorkerPoolOptions {
  concurrency: number;
  /** How often idle slots look for work. */
  pollMs: number;
  /** Takes and does one piece of work; false when there was none. */
  takeOne: () => Promise<boolean>;
  /** Reports a failure of takeOne; a pool never throws. */
  onError?: (error: unknown) => void;
}

export interface WorkerPool {
  start(): void;
  /** Looks for work now instead of at the next poll. */
  wake(): void;
  /** Stops taking work, and waits for the work in hand to finish. */
  stop(): Promise<void>;
  /** Takes work until there is none; for tests and scripts. Returns how many pieces it did. */
  drain(): Promise<number>;
}

export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  let running = false;
  let active = 0;
  let timer: NodeJS.Timeout | null = null;
  const inFlight = new Set<Promise<void>>();

  function fill(): void {
    while (running && active < options.concurrency) {
      active += 1;
      const slot = (async () => {
        try {
          while (running && (await options.takeOne()));
        } catch (error) {
          options.onError?.(error);
        } finally {
          active -= 1;
        }
      })();
      inFlight.add(slot);
      void slot.finally(() => inFlight.delete(slot));
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      fill();
      timer = setInterval(fill, options.pollMs);
      timer.unref();
    },
    wake() {
      if (running) fill();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      await Promise.all([...inFlight]);
    },
    drain() {
      return (async () => {
        let count = 0;
        while (await options.takeOne()) count += 1;
        return count;
      })();
    },
  };
}
