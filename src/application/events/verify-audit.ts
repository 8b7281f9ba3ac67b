// `audit verify` (docs/events.md, Verifying): recomputes an application's hash chain from the
// database and reports whether it is whole, or the first entry changed or removed.
import { type ChainVerdict, createChainVerifier, PRUNED_ACTION, prunedThrough } from '../../domain/audit-chain.js';
import { DomainError } from '../../domain/errors.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { EventStore } from '../ports/event-store.js';
import { chainedEntryOf } from './chain-entry.js';

/** Entries read per store call. */
const BATCH = 1000;

export async function verifyAuditChain(
  deps: { store: Pick<ApplicationStore, 'findApplication'> & Pick<EventStore, 'chainEvents' | 'chainedEvents' | 'chainHead' | 'listEvents'> },
  applicationId: string,
): Promise<ChainVerdict> {
  if ((await deps.store.findApplication(applicationId)) === null) throw new DomainError('APPLICATION_NOT_FOUND', 'no such application');
  // Entries committed but not linked yet are linked first (as the server's chainer would), so
  // the head read below covers everything the log holds.
  while ((await deps.store.chainEvents(BATCH)) > 0);
  const head = await deps.store.chainHead(applicationId);
  // Each prune removes more than the one before: the newest says where the chain now starts.
  const [pruned] = await deps.store.listEvents(applicationId, { action: PRUNED_ACTION }, { limit: 1 });
  const verifier = createChainVerifier(prunedThrough(pruned === undefined ? [] : [chainedEntryOf(pruned, pruned.seq ?? 0)]) + 1, head);
  // Read in batches and checked as read, so a long log is never held whole.
  for (let afterSeq = 0; ; ) {
    const batch = await deps.store.chainedEvents(applicationId, afterSeq, BATCH);
    for (const e of batch) if (!verifier.add({ ...chainedEntryOf(e, e.seq!), hash: e.hash! })) return verifier.verdict();
    if (batch.length < BATCH) return verifier.verdict();
    afterSeq = batch.at(-1)!.seq!;
  }
}
