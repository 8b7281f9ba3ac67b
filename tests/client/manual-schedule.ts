// A heartbeat schedule the test fires: the SDK's beats happen exactly when a test says, on a server
// clock the test moves (docs/testing.md, "Layout", tests/client).
import type { HeartbeatSchedule } from '../../src/client/gatehouse-client.js';

/** A schedule that holds the next beat until fire() runs it; cancelled beats never run. */
export function manualSchedule() {
  let pending: { beat: () => Promise<void>; ms: number } | null = null;
  const schedule: HeartbeatSchedule = (beat, ms) => {
    const entry = { beat, ms };
    pending = entry;
    return () => {
      if (pending === entry) pending = null;
    };
  };
  return {
    schedule,
    /** The delay the pending beat was scheduled with, or null when none is pending. */
    pendingDelay: () => pending?.ms ?? null,
    async fire() {
      const entry = pending;
      if (entry === null) throw new Error('no beat pending');
      pending = null;
      await entry.beat();
    },
  };
}
