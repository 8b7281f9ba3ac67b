// `audit verify` (docs/events.md, Verifying): recomputes an application's keyed hash chain from the
// database, checks it still holds a head exported earlier (the anchor), and reports the rows kept
// outside the chain rather than linking them: verifying never writes.
import { type ChainVerdict, createChainVerifier, entrySeal, PRUNED_ACTION, startAfterPrune } from '../../domain/audit-chain.js';
import { DomainError } from '../../domain/errors.js';
import { auditHeadSignedBy, type SignedAuditHead } from '../../signing/audit-head.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { EventStore } from '../ports/event-store.js';
import { shownEvent } from '../ports/event-renderer.js';
import { chainedEntryOf, sealedEntryOf } from './chain-entry.js';

/** Entries read per store call. */
const BATCH = 1000;
/** Unlinked rows named in a report at most (all are counted). */
const NAMED = 10;

export interface AuditReport {
  /** The chain whole, keyed, holding the anchor, and no row outside it but those waiting. */
  ok: boolean;
  chain: ChainVerdict;
  /** The anchor given was not signed by the application's key (or is another application's). */
  anchorRefused: boolean;
  /** Sealed rows the chainer has not linked yet (a server links them within a second). */
  pending: number;
  /** Rows outside the chain that no change sealed: written into the database by other means. */
  unlinked: { count: number; ids: string[] };
}

export type VerifyAuditDeps = Pick<Deps, 'auditChainKey' | 'renderEvent'> & {
  store: Pick<ApplicationStore, 'findApplication'> & Pick<EventStore, 'chainedEvents' | 'chainHead' | 'newestChained' | 'unlinkedEvents'>;
};

export async function verifyAuditChain(deps: VerifyAuditDeps, applicationId: string, anchor: SignedAuditHead | null = null): Promise<AuditReport> {
  const app = await deps.store.findApplication(applicationId);
  if (app === null) throw new DomainError('APPLICATION_NOT_FOUND', 'no such application');
  const key = deps.auditChainKey;
  const signers = [app.signing.response, app.signing.previousResponse].filter((k) => k !== null);
  const anchorRefused = anchor !== null && (anchor.application_id !== applicationId || !signers.some((k) => auditHeadSignedBy(anchor, k.publicKey)));
  const head = await deps.store.chainHead(applicationId);
  // Only a prune inside the chain says where it starts; it must itself verify (checked below).
  const pruned = await deps.store.newestChained(applicationId, PRUNED_ACTION);
  // Entries are checked as the API shows them: what the chain's links cover.
  const shown = <E extends Parameters<typeof shownEvent>[1]>(e: E) => shownEvent(deps.renderEvent, e);
  const start = startAfterPrune(pruned === null ? null : chainedEntryOf(shown(pruned), pruned.seq!));
  const verifier = createChainVerifier(key, start, head, anchor === null || anchorRefused ? null : { seq: anchor.seq, hash: anchor.hash });
  // Read in batches and checked as read, so a long log is never held whole.
  for (let afterSeq = 0; ;) {
    const batch = await deps.store.chainedEvents(applicationId, afterSeq, BATCH);
    const whole = batch.every((e) => verifier.add({ ...chainedEntryOf(shown(e), e.seq!), hash: e.hash! }));
    if (!whole || batch.length < BATCH) break;
    afterSeq = batch.at(-1)!.seq!;
  }
  let chain = verifier.verdict();
  if (chain.ok && pruned !== null && (pruned.seq! < start.seq || pruned.seq! >= start.seq + chain.count)) {
    chain = { ok: false, count: chain.count, problem: 'pruned', seq: pruned.seq! };
  }
  let pending = 0;
  const unlinked: AuditReport['unlinked'] = { count: 0, ids: [] };
  for (const e of await deps.store.unlinkedEvents(applicationId, 10_000)) {
    if (e.seal !== null && e.hash === null && e.seal === entrySeal(key, sealedEntryOf(e))) pending += 1;
    else {
      unlinked.count += 1;
      if (unlinked.ids.length < NAMED) unlinked.ids.push(e.id);
    }
  }
  return { ok: chain.ok && !anchorRefused && unlinked.count === 0, chain, anchorRefused, pending, unlinked };
}
