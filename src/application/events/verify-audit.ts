// `audit verify` (docs/events.md, Verifying): recomputes an application's hash chain from the
// database and reports whether it is whole, or the first entry changed or removed.
import { type ChainVerdict, verifyChain } from '../../domain/audit-chain.js';
import { DomainError } from '../../domain/errors.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { EventStore } from '../ports/event-store.js';
import { chainedEntryOf } from './chain-entry.js';

/** Entries read per store call. */
const BATCH = 1000;

export async function verifyAuditChain(
  deps: { store: Pick<ApplicationStore, 'findApplication'> & Pick<EventStore, 'chainEvents' | 'chainedEvents' | 'chainHead'> },
  applicationId: string,
): Promise<ChainVerdict> {
  if ((await deps.store.findApplication(applicationId)) === null) throw new DomainError('APPLICATION_NOT_FOUND', 'no such application');
  // Entries committed but not linked yet are linked first (as the server's chainer would), so
  // the head read below covers everything the log holds.
  while ((await deps.store.chainEvents(BATCH)) > 0);
  const head = await deps.store.chainHead(applicationId);
  const entries = [];
  for (let afterSeq = 0; ; ) {
    const batch = await deps.store.chainedEvents(applicationId, afterSeq, BATCH);
    entries.push(...batch.map((e) => ({ ...chainedEntryOf(e, e.seq!), hash: e.hash! })));
    if (batch.length < BATCH) break;
    afterSeq = batch.at(-1)!.seq!;
  }
  return verifyChain(entries, head);
}
