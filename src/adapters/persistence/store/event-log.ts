// Writing an event (docs/events.md): one row of the outbox and audit log, inserted by the change
// it describes inside that change's transaction, so it commits and rolls back with it. The actor
// is the running work's (application/events/actor-scope.ts). Webhook events are marked for the
// delivery workers' fan-out (store/webhook-fan-out.ts).
import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, gte, isNotNull, isNull, lt, lte, max, type Placeholder, sql } from 'drizzle-orm';
import { type ActorType, currentActor } from '../../../application/events/actor-scope.js';
import type { EventRecord, EventStore } from '../../../application/ports/event-store.js';
import { isWebhookEvent, type EventDraft } from '../../../application/events/event-draft.js';
import { chainHash, PRUNED_ACTION } from '../../../domain/audit-chain.js';
import { toIso, type Instant } from '../../../domain/time.js';
import { chainedEntryOf } from '../../../application/events/chain-entry.js';
import type { CompiledWrite, Db, Dialect } from '../dialect.js';
import type { Tables } from '../tables.js';
import { WEBHOOK_PENDING } from './webhook-fan-out.js';

/** The insert of one event, built once per dialect (Dialect.compile): most writes record one. */
const eventInserts = new WeakMap<Dialect, CompiledWrite>();

function eventInsert(d: Dialect): CompiledWrite {
  let insert = eventInserts.get(d);
  if (insert === undefined) {
    const { events } = d.t;
    const names = ['id', 'applicationId', 'occurredAt', 'action', 'actorType', 'actorId', 'actorIp', 'targetType', 'targetId', 'targetLabel', 'data', 'changes', 'outcome', 'webhookPending'] as const;
    const values = Object.fromEntries(names.map((name) => [name, sql.placeholder(name)])) as Record<(typeof names)[number], Placeholder>;
    insert = d.compile((db) => db.insert(events).values({ ...values, ...d.insertionOrder('pos', events.pos) }));
    eventInserts.set(d, insert);
  }
  return insert;
}

/** Inserts `drafts` as events at `now`, in the caller's transaction `tx`. */
export async function recordEvents(d: Dialect, tx: Db, drafts: readonly EventDraft[], now: Instant): Promise<void> {
  if (drafts.length === 0) return;
  const actor = currentActor();
  const insert = eventInsert(d);
  const recorded = drafts.map((draft) => ({ id: randomUUID(), draft }));
  // The inserts go out together. Webhook deliveries are made from them after the commit (store/webhook-fan-out.ts).
  const inserted = recorded.map(({ id, draft }) => {
    // An end user acting on their own account is known by the target once the request said who.
    const actorId = actor.id ?? (actor.type === 'end_user' && draft.target.type === 'user' ? draft.target.id : null);
    return insert(tx, {
      id,
      applicationId: draft.applicationId,
      occurredAt: now,
      action: draft.action,
      actorType: actor.type,
      actorId,
      actorIp: actor.ip,
      targetType: draft.target.type,
      targetId: draft.target.id,
      targetLabel: draft.target.label,
      data: JSON.stringify(draft.data),
      changes: draft.changes === undefined ? null : JSON.stringify(draft.changes),
      outcome: draft.outcome ?? 'success',
      webhookPending: isWebhookEvent(draft.action) ? WEBHOOK_PENDING : null,
    });
  });
  await Promise.all(inserted);
}

/**
 * Links up to `limit` of the application's unchained events after its chain head, in insertion
 * order, in one transaction with the head. The head row is locked skipping a locked one
 * (PostgreSQL), so a second instance chaining the same application moves on instead of waiting;
 * SQLite's transaction already holds the whole database, in any process.
 */
async function chainApplication(d: Dialect, link: CompiledWrite, applicationId: string, limit: number): Promise<number> {
  const { auditChainHeads: heads, events } = d.t;
  const ofHead = eq(heads.applicationId, applicationId);
  // The first link needs a head row to lock: seq 0, no hash yet.
  await d.write((w) => w.insert(heads).values({ applicationId, seq: 0, hash: '' }).onConflictDoNothing({ target: heads.applicationId }));
  return d.transaction(async (tx) => {
    const [head] = await d.locked(tx.select().from(heads).where(ofHead), { skipLocked: true });
    if (head === undefined) return 0;
    const rows = await tx
      .select()
      .from(events)
      .where(and(eq(events.applicationId, applicationId), isNull(events.seq)))
      .orderBy(asc(events.pos))
      .limit(limit);
    let seq = head.seq;
    let hash: string | null = head.seq === 0 ? null : head.hash;
    for (const row of rows) {
      seq += 1;
      const linked = chainHash(hash, chainedEntryOf(toEvent(row), seq));
      await link(tx, { seq, hash: linked, id: row.id });
      hash = linked;
    }
    if (rows.length > 0) await tx.update(heads).set({ seq, hash: hash ?? '' }).where(ofHead);
    return rows.length;
  });
}

export function eventStore(d: Dialect): EventStore {
  const { auditChainHeads: heads, events } = d.t;
  // Each event is linked by one update, built once (Dialect.compile).
  const p = sql.placeholder;
  const link = d.compile((db) => db.update(events).set({ seq: sql`${p('seq')}`, hash: sql`${p('hash')}` }).where(eq(events.id, p('id'))));
  return {
    async chainEvents(limit) {
      const pending = await d.db.selectDistinct({ applicationId: events.applicationId }).from(events).where(isNull(events.seq)).limit(100);
      let linked = 0;
      for (const { applicationId } of pending) {
        if (linked >= limit) break;
        linked += await chainApplication(d, link, applicationId, limit - linked);
      }
      return linked;
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

    async pruneEvents(before, now) {
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
          const gone = await tx
            .delete(events)
            .where(and(eq(events.applicationId, applicationId), isNotNull(events.seq), lte(events.seq, throughSeq)))
            .returning({ id: events.id });
          if (gone.length > 0) {
            const data = { through_seq: throughSeq, removed: gone.length, before: toIso(before) };
            await recordEvents(d, tx, [{ applicationId, action: PRUNED_ACTION, target: { type: 'application', id: applicationId, label: null }, data }], now);
          }
          return gone.length;
        });
      }
      return removed;
    },

    async recordEvent(draft, now) {
      await d.transaction((tx) => recordEvents(d, tx, [draft], now));
    },

    async listEvents(applicationId, filter, page) {
      const rows = await d.db
        .select()
        .from(events)
        .where(
          and(
            eq(events.applicationId, applicationId),
            filter.action === undefined ? undefined : eq(events.action, filter.action),
            filter.actorType === undefined ? undefined : eq(events.actorType, filter.actorType),
            filter.targetType === undefined ? undefined : eq(events.targetType, filter.targetType),
            filter.targetId === undefined ? undefined : eq(events.targetId, filter.targetId),
            filter.since === undefined ? undefined : gte(events.occurredAt, filter.since),
            filter.until === undefined ? undefined : lt(events.occurredAt, filter.until),
            page.beforePos === undefined ? undefined : lt(events.pos, page.beforePos),
          ),
        )
        .orderBy(desc(events.pos))
        .limit(page.limit);
      return rows.map(toEvent);
    },
  };
}

function toEvent(row: Tables['events']['$inferSelect']): EventRecord {
  return {
    id: row.id,
    applicationId: row.applicationId,
    pos: row.pos,
    occurredAt: row.occurredAt,
    action: row.action,
    actor: { type: row.actorType as ActorType, id: row.actorId, ip: row.actorIp },
    target: { type: row.targetType, id: row.targetId, label: row.targetLabel },
    data: JSON.parse(row.data) as Record<string, unknown>,
    changes: row.changes === null ? null : (JSON.parse(row.changes) as Record<string, [unknown, unknown]>),
    outcome: row.outcome,
    seq: row.seq,
    hash: row.hash,
  };
}
