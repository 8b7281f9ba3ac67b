// Webhook fan-out (docs/api.md, Webhooks): every event a change records becomes one pending
// delivery per enabled endpoint of its application subscribed to it, inserted in the change's own
// transaction, so a delivery exists exactly when its event committed. Runs on every recorded
// event (logins included): one read over the endpoints' application index, and no write at all
// for an application without endpoints.
import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { isWebhookEvent, type EventDraft } from '../../../application/events/event-draft.js';
import type { Instant } from '../../../domain/time.js';
import { receivesEvent } from '../../../domain/webhook-subscription.js';
import type { CompiledRead, Db, Dialect } from '../dialect.js';

/** The read of one application's endpoints, built once per dialect (Dialect.compileRead): every login's event asks it. */
const endpointReads = new WeakMap<Dialect, CompiledRead<{ id: string; applicationId: string; events: string; enabled: boolean }>>();

function endpointsOf(d: Dialect) {
  let read = endpointReads.get(d);
  if (read === undefined) {
    const { webhookEndpoints: e } = d.t;
    const fields = { id: e.id, applicationId: e.applicationId, events: e.events, enabled: e.enabled };
    read = d.compileRead(fields, (db) => db.select(fields).from(e).where(eq(e.applicationId, sql.placeholder('applicationId'))));
    endpointReads.set(d, read);
  }
  return read;
}

/** Inserts the deliveries of `recorded` events in `tx`, to the endpoints receivesEvent names. */
export async function fanOutWebhooks(d: Dialect, tx: Db, recorded: ReadonlyArray<{ id: string; draft: EventDraft }>, now: Instant): Promise<void> {
  const hooked = recorded.filter((r) => isWebhookEvent(r.draft.action));
  if (hooked.length === 0) return;
  const { webhookEndpoints: e, webhookDeliveries } = d.t;
  const applicationIds = [...new Set(hooked.map((r) => r.draft.applicationId))];
  const [only] = applicationIds;
  const endpoints =
    applicationIds.length === 1 && only !== undefined
      ? await endpointsOf(d)(tx, { applicationId: only })
      : await tx.select({ id: e.id, applicationId: e.applicationId, events: e.events, enabled: e.enabled }).from(e).where(inArray(e.applicationId, applicationIds));
  if (endpoints.length === 0) return;
  const subscribers = endpoints.map((endpoint) => ({ ...endpoint, events: JSON.parse(endpoint.events) as string[] }));
  const rows = [];
  for (const { id: eventId, draft } of hooked) {
    for (const endpoint of subscribers) {
      if (endpoint.applicationId !== draft.applicationId || !receivesEvent(endpoint, draft.action, draft.target.id)) continue;
      rows.push({
        id: randomUUID(),
        applicationId: draft.applicationId,
        endpointId: endpoint.id,
        eventId,
        state: 'pending',
        attempts: 0,
        runAfter: now,
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  if (rows.length > 0) await tx.insert(webhookDeliveries).values(rows).onConflictDoNothing();
}

