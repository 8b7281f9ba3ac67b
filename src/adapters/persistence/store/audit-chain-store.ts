// The audit log's hash chain (docs/events.md, The hash chain): links committed, sealed events into
// their applications' chains under the chain's key, reads the chain for `audit verify`, re-anchors
// chains made before keying, and prunes a prefix for retention.
import { and, asc, desc, eq, gt, isNotNull, isNull, lt, lte, max, ne } from 'drizzle-orm';
import type { EventStore } from '../../../application/ports/event-store.js';
import { chainedEntryOf, sealedEntryOf } from '../../../application/events/chain-entry.js';
import { type RenderEvent, shownEvent } from '../../../application/ports/event-renderer.js';
import { type ChainKey, chainHash, entrySeal, PRUNED_ACTION, REKEYED_ACTION } from '../../../domain/audit-chain.js';
import { toIso } from '../../../domain/time.js';
import type { Dialect } from '../dialect.js';
import { type RecordEvents, toEvent } from './event-log.js';

/** What the chainer writes as `hash` on a row whose seal does not verify: it stays out of the chain. */
export const UNLINKED = 'unlinked';

// Links up to `limit` unchained events after the chain head, in one transaction with the head,
// locked with SKIP LOCKED so a second instance moves on instead of waiting (docs/choices.md;
// SQLite's transaction already holds the whole database).
async function chainApplication(d: Dialect, key: ChainKey, render: RenderEvent, applicationId: string, limit: number): Promise<number> {
  const { auditChainHeads: heads, events } = d.t;
  const ofHead = eq(heads.applicationId, applicationId);
  // The first link needs a head row to lock: seq 0, no hash yet.
  await d.write((w) => w.insert(heads).values({ applicationId, seq: 0, hash: '', keyed: true }).onConflictDoNothing({ target: heads.applicationId }));
  return d.transaction(async (tx) => {
    const [head] = await d.locked(tx.select().from(heads).where(ofHead), { skipLocked: true });
    if (head === undefined) return 0;
    const rows = await tx
      .select()
      .from(events)
      .where(and(eq(events.applicationId, applicationId), isNull(events.seq), isNull(events.hash)))
      .orderBy(asc(events.pos))
      .limit(limit);
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
    if (linked > 0)
      await tx
        .update(heads)
        .set({ seq, hash: hash ?? '', keyed: true })
        .where(ofHead);
    return rows.length;
  });
}

type ChainMethods = Pick<EventStore, 'chainEvents' | 'chainedEvents' | 'chainHead' | 'unlinkedEvents' | 'newestChained' | 'reanchorUnkeyedChains' | 'pruneEvents'>;

export function auditChainStore(d: Dialect, key: ChainKey, recordEvents: RecordEvents, render: RenderEvent): ChainMethods {
  const { auditChainHeads: heads, events } = d.t;
  return {
    async chainEvents(limit) {
      const pending = await d.db
        .selectDistinct({ applicationId: events.applicationId })
        .from(events)
        .where(and(isNull(events.seq), isNull(events.hash)))
        .limit(100);
      let seen = 0;
      for (const { applicationId } of pending) {
        if (seen >= limit) break;
        seen += await chainApplication(d, key, render, applicationId, limit - seen);
      }
      return seen;
    },
    async chainedEvents(applicationId, afterSeq, limit) {
      const rows = await d.db
        .select()
        .from(events)
        .where(and(eq(events.applicationId, applicationId), gt(events.seq, afterSeq)))
        .orderBy(asc(events.seq))
        .limit(limit);
      return rows.map(toEvent);
    },
    async chainHead(applicationId) {
      const [head] = await d.db.select().from(heads).where(eq(heads.applicationId, applicationId));
      return head === undefined || head.seq === 0 ? null : { seq: head.seq, hash: head.hash };
    },
    async unlinkedEvents(applicationId, limit) {
      const rows = await d.db
        .select()
        .from(events)
        .where(and(eq(events.applicationId, applicationId), isNull(events.seq)))
        .orderBy(asc(events.pos))
        .limit(limit);
      return rows.map(toEvent);
    },
    async newestChained(applicationId, action) {
      const [row] = await d.db
        .select()
        .from(events)
        .where(and(eq(events.applicationId, applicationId), eq(events.action, action), isNotNull(events.seq)))
        .orderBy(desc(events.seq))
        .limit(1);
      return row === undefined ? null : toEvent(row);
    },
    async reanchorUnkeyedChains(now, actor) {
      const unkeyed = await d.db
        .select()
        .from(heads)
        .where(and(eq(heads.keyed, false), ne(heads.seq, 0)));
      for (const head of unkeyed) {
        const draft = { applicationId: head.applicationId, action: REKEYED_ACTION, target: { type: 'application', id: head.applicationId, label: null }, data: { unkeyed_through_seq: head.seq } };
        await d.transaction((tx) => recordEvents(tx, actor, [draft], now));
      }
      return unkeyed.length;
    },
    async pruneEvents(before, now, actor) {
      // Per application, the newest chained entry older than `before`: everything up to it in
      // the chain goes, so what remains is the chain's tail (docs/events.md, Retention).
      const ends = await d.db
        .select({ applicationId: events.applicationId, through: max(events.seq) })
        .from(events)
        .where(and(isNotNull(events.seq), lt(events.occurredAt, before)))
        .groupBy(events.applicationId);
      let removed = 0;
      for (const { applicationId, through } of ends) {
        if (through === null) continue;
        const throughSeq = Number(through);
        removed += await d.transaction(async (tx) => {
          // The last removed entry's hash, so the first one left is still recomputed, not trusted.
          const [last] = await tx
            .select({ hash: events.hash })
            .from(events)
            .where(and(eq(events.applicationId, applicationId), eq(events.seq, throughSeq)));
          const gone = await tx
            .delete(events)
            .where(and(eq(events.applicationId, applicationId), isNotNull(events.seq), lte(events.seq, throughSeq)))
            .returning({ id: events.id });
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
