// Writing an event (docs/events.md): one row inserted in the change's own transaction, marked for
// the workers' fan-out when it is a webhook event (docs/architecture.md, "Adding an event").
import { randomUUID } from 'node:crypto';
import { and, desc, eq, gte, lt } from 'drizzle-orm';
import type { Actor, ActorType } from '../../../application/events/actor.js';
import type { DataForm, EventRecord, EventStore } from '../../../application/ports/event-store.js';
import type { RenderEvent } from '../../../application/ports/event-renderer.js';
import { isWebhookEvent, type EventDraft } from '../../../application/events/event-draft.js';
import { type ChainKey, entrySeal } from '../../../domain/audit-chain.js';
import type { Instant } from '../../../domain/time.js';
import { sealedEntryOf } from '../../../application/events/chain-entry.js';
import type { Db, Dialect } from '../dialect.js';
import type { Tables } from '../tables.js';
import { WEBHOOK_PENDING } from './webhook-fan-out.js';
import { auditChainStore } from './audit-chain-store.js';

/** Writes events in the caller's transaction `tx`, as `actor`, at `now` (eventWriter). */
export type RecordEvents = (tx: Db, actor: Actor, drafts: readonly EventDraft[], now: Instant) => Promise<void>;

/** The store areas' event writer: every event is sealed with the chain's `key` as it is written. */
export function eventWriter(d: Dialect, key: ChainKey): RecordEvents {
  const { events } = d.t;
  return async (tx, actor, drafts, now) => {
    // The inserts go out together. Webhook deliveries are made from them after the commit (store/webhook-fan-out.ts).
    const inserted = drafts.map((draft) => {
      // An end user acting on their own account is known by the target once the request said who.
      const actorId = actor.id ?? (actor.type === 'end_user' && draft.target.type === 'user' ? draft.target.id : null);
      const row = {
        id: randomUUID(),
        applicationId: draft.applicationId,
        occurredAt: now,
        action: draft.action,
        actorType: actor.type,
        actorId,
        actorIp: actor.ip,
        targetType: draft.target.type,
        targetId: draft.target.id,
        targetLabel: draft.target.label ?? null,
        dataForm: 'facts' as const,
        data: JSON.stringify(draft.data),
        changes: draft.changes === undefined ? null : JSON.stringify(draft.changes),
        outcome: draft.outcome ?? 'success',
        webhookPending: isWebhookEvent(draft.action) ? WEBHOOK_PENDING : null,
      };
      // Sealed as it will read back (its facts), so the chainer can tell it from a row written by hand.
      const seal = entrySeal(key, sealedEntryOf(toEvent({ ...row, pos: 0, seq: null, hash: null, seal: null })));
      // Numbered in insertion order (Dialect.insertionOrder).
      return tx.insert(events).values({ ...row, seal, ...d.insertionOrder('pos', events.pos) });
    });
    await Promise.all(inserted);
  };
}

/** `render` shows an event as the chain covers it (compose.ts gives the events adapter's). */
export function eventStore(d: Dialect, key: ChainKey, recordEvents: RecordEvents, render: RenderEvent): EventStore {
  const { events } = d.t;
  return {
    ...auditChainStore(d, key, recordEvents, render),
    async recordEvent(draft, now, actor) {
      await d.transaction((tx) => recordEvents(tx, actor, [draft], now));
    },
    async listEvents(applicationId, filter, page) {
      const filtered = and(
        eq(events.applicationId, applicationId),
        filter.action === undefined ? undefined : eq(events.action, filter.action),
        filter.actorType === undefined ? undefined : eq(events.actorType, filter.actorType),
        filter.targetType === undefined ? undefined : eq(events.targetType, filter.targetType),
        filter.targetId === undefined ? undefined : eq(events.targetId, filter.targetId),
        filter.since === undefined ? undefined : gte(events.occurredAt, filter.since),
        filter.until === undefined ? undefined : lt(events.occurredAt, filter.until),
        page.beforePos === undefined ? undefined : lt(events.pos, page.beforePos),
      );
      return (await d.db.select().from(events).where(filtered).orderBy(desc(events.pos)).limit(page.limit)).map(toEvent);
    },
  };
}

export function toEvent(row: Tables['events']['$inferSelect']): EventRecord {
  return {
    id: row.id,
    applicationId: row.applicationId,
    pos: row.pos,
    occurredAt: row.occurredAt,
    action: row.action,
    actor: { type: row.actorType as ActorType, id: row.actorId, ip: row.actorIp },
    target: { type: row.targetType, id: row.targetId, label: row.targetLabel },
    dataForm: row.dataForm as DataForm,
    data: JSON.parse(row.data) as Record<string, unknown>,
    changes: row.changes === null ? null : (JSON.parse(row.changes) as Record<string, [unknown, unknown]>),
    outcome: row.outcome,
    seq: row.seq,
    hash: row.hash,
    seal: row.seal,
  };
}
