// The audit log's hash chain (docs/events.md, The hash chain): links, reads, re-anchors, prunes.
import { and, asc, desc, eq, gt, isNotNull, isNull, lt, lte, max, ne } from 'drizzle-orm';
import type { EventStore } from '../../../application/ports/event-store.js';
import { chainedEntryOf, sealedEntryOf } from '../../../application/events/chain-entry.js';
import { type RenderEvent, shownEvent } from '../../../application/ports/event-renderer.js';
import { type ChainKey, chainHash, entrySeal, PRUNED_ACTION, REKEYED_ACTION } from '../../../domain/audit-chain.js';
import { toIso } from '../../../domain/time.js';
import type { Dialect } from '../dialect.js';
import { type RecordEvents, toEvent } from './event-log.js';

/** What the chainer writes as `hash` on a row whose seal does not verify: it stays out of the chain. */
const UNLINKED = 'unlinked';

// Links up to `limit` unchained events after the chain head, locked with SKIP LOCKED (docs/architecture.md, "Persistence notes").
async function chainApplication(d: Dialect, key: ChainKey, render: RenderEvent, applicationId: string, limit: number): Promise<number> {
  const { auditChainHeads: heads, events } = d.t;
  const ofHead = eq(heads.applicationId, applicationId);
  // The first link needs a head row to lock: seq 0, no hash yet.
  await d.write((w) => w.insert(heads).values({ applicationId, seq: 0, hash: '', keyed: true }).onConflictDoNothing({ target: heads.applicationId }));
  return d.transaction(async (tx) => {
    const [head] = await d.locked(tx.select().from(heads).where(ofHead), { skipLocked: true });
    if (head === undefined) return 0;
    const unchained = and(eq(events.applicationId, applicationId), isNull(events.seq), isNull(events.hash));
    const rows = await tx.select().from(events).where(unchained).orderBy(asc(events.pos)).limit(limit);
    let seq = head.seq;
    let hash: string | null = head.seq === 0 ? null : head.hash;
    let linked = 0;
    for (const row of rows) {
      const event = toEvent(row);
      // A row its change did not seal was written by someone without the key: never linked.
      if (row.seal !== entrySeal(key, sealedEntryOf(event))) {
        await tx.update(events).set({ hash: UNLINKED }).where(eq(events.id, row.id));
        continue;
      }
      seq += 1;
      // The link covers the entry as the API shows it, so an exported entry verifies (docs/events.md).
      const next = chainHash(key, hash, chainedEntryOf(shownEvent(render, event), seq));
      await tx.update(events).set({ seq, hash: next }).where(eq(events.id, row.id));
      hash = next;
      linked += 1;
    }
    const newHead = { seq, hash: hash ?? '', keyed: true };
    if (linked > 0) await tx.update(heads).set(newHead).where(ofHead);
    return rows.length;
  });
}

type ChainMethods = Pick<EventStore, 'chainEvents' | 'chainedEvents' | 'chainHead' | 'unlinkedEvents' | 'newestChained' | 'reanchorUnkeyedChains' | 'pruneEvents'>;

export function auditChainStore(d: Dialect, key: ChainKey, recordEvents: RecordEvents, render: RenderEvent): ChainMethods {
  const { auditChainHeads: heads, events } = d.t;
  return {
    async chainEvents(limit) {
      const unchained = and(isNull(events.seq), isNull(events.hash));
      const pending = await d.db.selectDistinct({ applicationId: events.applicationId }).from(events).where(unchained).limit(100);
      let seen = 0;
      for (const { applicationId } of pending) {
        if (seen >= limit) break;
        seen += await chainApplication(d, key, render, applicationId, limit - seen);
      }
      return seen;
    },
    async chainedEvents(applicationId, afterSeq, limit) {
      const after = and(eq(events.applicationId, applicationId), gt(events.seq, afterSeq));
      const rows = await d.db.select().from(events).where(after).orderBy(asc(events.seq)).limit(limit);
      return rows.map(toEvent);
    },
    async chainHead(applicationId) {
      const [head] = await d.db.select().from(heads).where(eq(heads.applicationId, applicationId));
      return head === undefined || head.seq === 0 ? null : { seq: head.seq, hash: head.hash };
    },
    async unlinkedEvents(applicationId, limit) {
      const unlinked = and(eq(events.applicationId, applicationId), isNull(events.seq));
      const rows = await d.db.select().from(events).where(unlinked).orderBy(asc(events.pos)).limit(limit);
      return rows.map(toEvent);
    },
    async newestChained(applicationId, action) {
      const chainedOfAction = and(eq(events.applicationId, applicationId), eq(events.action, action), isNotNull(events.seq));
      const [row] = await d.db.select().from(events).where(chainedOfAction).orderBy(desc(events.seq)).limit(1);
      return row === undefined ? null : toEvent(row);
    },
    async reanchorUnkeyedChains(now, actor) {
      const unkeyedSinceStart = and(eq(heads.keyed, false), ne(heads.seq, 0));
      const unkeyed = await d.db.select().from(heads).where(unkeyedSinceStart);
      for (const head of unkeyed) {
        const draft = { applicationId: head.applicationId, action: REKEYED_ACTION, target: { type: 'application', id: head.applicationId, label: null }, data: { unkeyed_through_seq: head.seq } };
        await d.transaction((tx) => recordEvents(tx, actor, [draft], now));
      }
      return unkeyed.length;
    },
    async pruneEvents(before, now, actor) {
      // Per application, the newest chained entry older than `before`: everything up to it in
      // the chain goes, so what remains is the chain's tail (docs/events.md, Retention).
      const chainedBefore = and(isNotNull(events.seq), lt(events.occurredAt, before));
      const through = max(events.seq);
      const ends = await d.db.select({ applicationId: events.applicationId, through }).from(events).where(chainedBefore).groupBy(events.applicationId);
      let removed = 0;
      for (const { applicationId, through } of ends) {
        if (through === null) continue;
        const throughSeq = Number(through);
        removed += await d.transaction(async (tx) => {
          // The last removed entry's hash, so the first one left is still recomputed, not trusted.
          const lastRemoved = and(eq(events.applicationId, applicationId), eq(events.seq, throughSeq));
          const [last] = await tx.select({ hash: events.hash }).from(events).where(lastRemoved);
          const chainPrefix = and(eq(events.applicationId, applicationId), isNotNull(events.seq), lte(events.seq, throughSeq));
          const gone = await tx.delete(events).where(chainPrefix).returning({ id: events.id });
          if (gone.length > 0) {
            const data = { through_seq: throughSeq, through_hash: last?.hash ?? null, removed: gone.length, before: toIso(before) };
            await recordEvents(tx, actor, [{ applicationId, action: PRUNED_ACTION, target: { type: 'application', id: applicationId, label: null }, data }], now);
          }
          return gone.length;
        });
      }
      return removed;
    },
  };
}
