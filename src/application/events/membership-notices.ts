// Sends the expiry notices of memberships (docs/events.md, membership.expiring and
// membership.expired) from every instance: each pass records what is due at the clock's now, and the
// store lets one caller record each notice (docs/plans.md, "Expiry notices").
import type { Deps } from '../deps.js';
import type { MembershipNoticeStore } from '../ports/membership-notice-store.js';
import { SYSTEM } from './actor.js';

/** How often the server looks for notices due: a notice comes at most this late. */
export const MEMBERSHIP_NOTICES_EVERY_MS = 60_000;

/** Memberships per store call: one transaction locks at most this many users. */
const BATCH = 200;

export interface MembershipNoticer {
  start(): void;
  /** Waits for a running pass, then stops polling. */
  stop(): Promise<void>;
  /** Records every notice due now (tests); how many it recorded. */
  drain(): Promise<number>;
}

export function createMembershipNoticer(deps: Pick<Deps, 'clock'> & { store: MembershipNoticeStore }, options: { pollMs: number; onError?: (error: unknown) => void }): MembershipNoticer {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const pass = await deps.store.recordMembershipNotices(deps.clock.now(), BATCH, SYSTEM);
      total += pass.recorded;
      // A full batch that recorded nothing was taken by another instance meanwhile: the next poll goes on.
      if (pass.scanned < BATCH || pass.recorded === 0) return total;
    }
  }

  /** One pass at a time: a poll while one runs is skipped. */
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
