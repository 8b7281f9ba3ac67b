// Background work that an instance repeats on a timer (the audit chainer, the expiry notices):
// one pass at a time, a poll while one runs skipped, the timer unref'd so it never keeps the
// process up, and a stop that waits for the pass in hand.

export interface PeriodicPasses {
  start(): void;
  /** Waits for a running pass, then stops polling. */
  stop(): Promise<void>;
  /** Runs a pass now and answers what it did (tests, commands). */
  drain(): Promise<number>;
}

export function periodicPasses(drain: () => Promise<number>, options: { pollMs: number; onError?: (error: unknown) => void }): PeriodicPasses {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

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
