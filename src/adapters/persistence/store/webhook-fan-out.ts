// Fan-out after the commit (docs/architecture.md, "Adding an event"), exactly once (docs/architecture.md, "Persistence notes").
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import type { Instant } from '../../../domain/time.js';
import { receivesEvent } from '../../../domain/webhook-subscription.js';
import type { Dialect } from '../dialect.js';

/** The mark of an event still to fan out (null once done, or for audit-only actions). */
export const WEBHOOK_PENDING = 1;

/** Fans out up to `limit` marked events, oldest first, at `now`; returns how many it took. */
export async function fanOutPendingEvents(d: Dialect, now: Instant, limit: number): Promise<number> {
  const { events, webhookEndpoints: e, webhookDeliveries } = d.t;
  const marked = eq(events.webhookPending, WEBHOOK_PENDING);
  // Most polls find nothing: a read, without opening a writing transaction.
  const [any] = await d.db.select({ id: events.id }).from(events).where(marked).limit(1);
  if (any === undefined) return 0;
  return d.transaction(async (tx) => {
    const fields = { id: events.id, applicationId: events.applicationId, action: events.action, targetId: events.targetId, occurredAt: events.occurredAt };
    const batch = await d.locked(tx.select(fields).from(events).where(marked).orderBy(asc(events.pos)).limit(limit), { skipLocked: true });
    if (batch.length === 0) return 0;
    const applicationIds = [...new Set(batch.map((event) => event.applicationId))];
    // Endpoints that existed when the event happened: one added later starts with later events.
    const newest = Math.max(...batch.map((event) => event.occurredAt));
    const existedThen = and(inArray(e.applicationId, applicationIds), lte(e.createdAt, newest));
    const endpoints = await tx.select({ id: e.id, applicationId: e.applicationId, events: e.events, enabled: e.enabled, createdAt: e.createdAt }).from(e).where(existedThen);
    const subscribers = endpoints.map((endpoint) => ({ ...endpoint, events: JSON.parse(endpoint.events) as string[] }));
    const rows = [];
    for (const event of batch) {
      for (const endpoint of subscribers) {
        if (endpoint.applicationId !== event.applicationId || endpoint.createdAt > event.occurredAt) continue;
        if (!receivesEvent(endpoint, event.action, event.targetId)) continue;
        rows.push({
          id: randomUUID(),
          applicationId: event.applicationId,
          endpointId: endpoint.id,
          eventId: event.id,
          state: 'pending',
          attempts: 0,
          runAfter: now,
          createdAt: event.occurredAt,
          updatedAt: now,
        });
      }
    }
    // The unique (endpoint, event) pair makes a repeated fan-out a no-op.
    if (rows.length > 0) await tx.insert(webhookDeliveries).values(rows).onConflictDoNothing();
    const taken = batch.map((event) => event.id);
    await tx.update(events).set({ webhookPending: null }).where(inArray(events.id, taken));
    return batch.length;
  });
}
