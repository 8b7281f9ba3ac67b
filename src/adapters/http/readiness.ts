import type { Deps } from '../../application/deps.js';

/** How long one answer of the backing services stands (docs/api.md, Health). */
export const READINESS_CACHE_MS = 1000;

/** Whether the database and the blob store answer, asked at most once per READINESS_CACHE_MS of the
 * service clock: probes at any rate, or a burst sharing the ping in flight, cost one ping of each
 * per second. A failure is remembered for the same second as a success. */
export function createReadinessCheck(deps: Pick<Deps, 'store' | 'blobs' | 'clock'>): () => Promise<boolean> {
  let last: { at: number; ready: Promise<boolean> } | null = null;
  return () => {
    const now = deps.clock.now();
    if (last === null || now - last.at >= READINESS_CACHE_MS || now < last.at) {
      const ready = Promise.all([deps.store.ping(), deps.blobs.ping()]).then(
        () => true,
        () => false,
      );
      last = { at: now, ready };
    }
    return last.ready;
  };
}
