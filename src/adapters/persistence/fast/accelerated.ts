// The fast path: the plain store with its hot reads answered by prepared statements on a handle of
// their own (fast-reads.ts), every other method the plain store's. The contract suite runs on both,
// so the plain store is this one's oracle (docs/architecture.md, "The fast path").
import type { Store } from '../../../application/ports/store.js';
import type { FastReads } from './fast-reads.js';
import { answeringUnreachable } from '../unreachable-database.js';
import { hotReads } from './hot-reads.js';

/** `plain` with its hot reads served over `fast`; closing it closes both. */
export function accelerated(plain: Store, fast: FastReads): Store {
  const reads = answeringUnreachable(hotReads(fast), fast.unreachable);
  // Every method not read here may write: each tells the fast reads once it is done.
  const wrapped = Object.fromEntries(
    Object.entries(plain).map(([name, method]) => [name, (...args: unknown[]) => (method as (...a: unknown[]) => Promise<unknown>).apply(plain, args).finally(fast.wrote)]),
  ) as unknown as Store;
  return {
    ...wrapped,
    ...reads,
    databaseLoad: () => plain.databaseLoad(),
    ping: () => plain.ping(),
    close: async () => {
      await fast.close();
      await plain.close();
    },
  };
}
