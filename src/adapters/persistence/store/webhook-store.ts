// Webhook endpoints and the durable queue of their deliveries (docs/api.md, Webhooks; docs/architecture.md, "Persistence notes").
import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lte, or } from 'drizzle-orm';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookQueue, WebhookStore } from '../../../application/ports/webhook-store.js';
import { checkEndpointCap, countTestSend } from '../../../domain/webhook-limits.js';
import { type Dialect, firstAs, ofApplication } from '../dialect.js';
import type { Tables } from '../tables.js';
import { webhookEndpointChanged } from '../../../application/events/content-facts.js';
import { type RecordEvents, toEvent } from './event-log.js';
import { fanOutPendingEvents } from './webhook-fan-out.js';

type EndpointRow = Tables['webhookEndpoints']['$inferSelect'];

const toEndpoint = (r: EndpointRow): WebhookEndpointRecord => ({ ...r, events: JSON.parse(r.events) as string[] });

export function webhookStore(d: Dialect, recordEvents: RecordEvents): WebhookStore & WebhookQueue {
  const { webhookEndpoints: e, webhookDeliveries: dl, webhookAttempts: at, webhookTestWindows: tw, events, applications } = d.t;
  return {
    async insertWebhookEndpoint(endpoint, actor) {
      await d.transaction(async (tx) => {
        // The application's row, locked, orders concurrent creations, so the cap holds under a race.
        await d.locked(tx.select({ id: applications.id }).from(applications).where(eq(applications.id, endpoint.applicationId)));
        const [held] = await tx.select({ n: count() }).from(e).where(eq(e.applicationId, endpoint.applicationId));
        checkEndpointCap(Number(held?.n ?? 0));
        await tx.insert(e).values({ ...endpoint, events: JSON.stringify(endpoint.events) });
        await recordEvents(tx, actor, [webhookEndpointChanged('webhook.created', endpoint)], endpoint.createdAt);
      });
    },
    async recordWebhookTest(draft, now, actor) {
      await d.transaction(async (tx) => {
        const ofApp = eq(tw.applicationId, draft.applicationId);
        await tx.insert(tw).values({ applicationId: draft.applicationId, windowStart: now, sends: 0 }).onConflictDoNothing({ target: tw.applicationId });
        const [window] = await d.locked(tx.select({ windowStart: tw.windowStart, sends: tw.sends }).from(tw).where(ofApp));
        const counted = countTestSend(window ?? null, now);
        await tx.update(tw).set(counted).where(ofApp);
        await recordEvents(tx, actor, [draft], now);
      });
    },
    async listWebhookEndpoints(applicationId) {
      const rows = await d.db.select().from(e).where(eq(e.applicationId, applicationId)).orderBy(asc(e.createdAt), asc(e.id));
      return rows.map(toEndpoint);
    },
    async findWebhookEndpoint(applicationId, endpointId) {
      const mine = ofApplication(e, applicationId, endpointId);
      return firstAs(d.db.select().from(e).where(mine), toEndpoint);
    },
    async updateWebhookEndpoint(applicationId, endpointId, change, now, actor) {
      const { events: names, ...rest } = change;
      return d.transaction(async (tx) => {
        const mine = ofApplication(e, applicationId, endpointId);
        const [before] = await d.locked(tx.select().from(e).where(mine));
        if (before === undefined) return null;
        const set = { ...rest, ...(names === undefined ? {} : { events: JSON.stringify(names) }), updatedAt: now };
        const [row] = await tx.update(e).set(set).where(eq(e.id, endpointId)).returning();
        if (row === undefined) return null;
        const after = toEndpoint(row);
        await recordEvents(tx, actor, [webhookEndpointChanged('webhook.updated', after, toEndpoint(before))], now);
        return after;
      });
    },
    async deleteWebhookEndpoint(applicationId, endpointId, now, actor) {
      return d.transaction(async (tx) => {
        const mine = ofApplication(e, applicationId, endpointId);
        const [gone] = await tx.delete(e).where(mine).returning();
        if (gone === undefined) return false;
        await recordEvents(tx, actor, [webhookEndpointChanged('webhook.deleted', toEndpoint(gone))], now);
        return true;
      });
    },
    async rotateWebhookSecret(applicationId, endpointId, secretSealed, previousUntil, now, actor) {
      return d.transaction(async (tx) => {
        const mine = ofApplication(e, applicationId, endpointId);
        const [current] = await d.locked(tx.select({ secretSealed: e.secretSealed }).from(e).where(mine));
        if (current === undefined) return null;
        const [row] = await tx.update(e).set({ secretSealed, previousSecretSealed: current.secretSealed, previousSecretUntil: previousUntil, updatedAt: now }).where(eq(e.id, endpointId)).returning();
        if (row === undefined) return null;
        await recordEvents(tx, actor, [webhookEndpointChanged('webhook.secret_rotated', toEndpoint(row))], now);
        return toEndpoint(row);
      });
    },
    async listWebhookDeliveries(applicationId, endpointId, limit) {
      return d.snapshot(async (tx) => {
        const ofEndpoint = and(eq(dl.applicationId, applicationId), eq(dl.endpointId, endpointId));
        const fields = { id: dl.id, endpointId: dl.endpointId, eventId: dl.eventId, eventType: events.action, state: dl.state, runAfter: dl.runAfter, createdAt: dl.createdAt };
        const rows = await tx.select(fields).from(dl).innerJoin(events, eq(events.id, dl.eventId)).where(ofEndpoint).orderBy(desc(dl.createdAt), desc(events.pos)).limit(limit);
        if (rows.length === 0) return [];
        const attemptFields = { deliveryId: at.deliveryId, attemptedAt: at.attemptedAt, statusCode: at.statusCode, latencyMs: at.latencyMs, error: at.error, responseBody: at.responseBody };
        const deliveryIds = rows.map((r) => r.id);
        const attempts = await tx.select(attemptFields).from(at).where(inArray(at.deliveryId, deliveryIds)).orderBy(asc(at.attemptedAt), asc(at.id));
        const attemptsOf = (id: string) => attempts.filter((a) => a.deliveryId === id).map(({ deliveryId: _, ...attempt }) => attempt);
        return rows.map((r): WebhookDeliveryRecord => ({ ...r, state: r.state as WebhookDeliveryRecord['state'], attempts: attemptsOf(r.id) }));
      });
    },
    async redeliverWebhook(applicationId, endpointId, deliveryId, now) {
      const theDelivery = and(eq(dl.applicationId, applicationId), eq(dl.endpointId, endpointId), eq(dl.id, deliveryId));
      const done = await d.write((w) => w.update(dl).set({ state: 'pending', runAfter: now, updatedAt: now }).where(theDelivery).returning({ id: dl.id }));
      return done.length > 0;
    },
    fanOutWebhookEvents: (now, limit) => fanOutPendingEvents(d, now, limit),
    async claimWebhookDelivery(workerId, now, leaseMs) {
      return d.transaction(async (tx) => {
        const dueAndFree = and(eq(dl.state, 'pending'), lte(dl.runAfter, now), or(isNull(dl.leaseUntil), lte(dl.leaseUntil, now)));
        const [candidate] = await d.locked(tx.select({ id: dl.id }).from(dl).where(dueAndFree).orderBy(asc(dl.runAfter), asc(dl.createdAt)).limit(1), { skipLocked: true });
        if (candidate === undefined) return null;
        const lease = { leaseOwner: workerId, leaseUntil: now + leaseMs };
        await tx.update(dl).set(lease).where(eq(dl.id, candidate.id));
        const endpoint = { id: e.id, url: e.url, enabled: e.enabled, secretSealed: e.secretSealed, previousSecretSealed: e.previousSecretSealed, previousSecretUntil: e.previousSecretUntil };
        const [row] = await tx
          .select({ attempts: dl.attempts, endpoint, event: events })
          .from(dl)
          .innerJoin(e, eq(e.id, dl.endpointId))
          .innerJoin(events, eq(events.id, dl.eventId))
          .where(eq(dl.id, candidate.id));
        if (row === undefined) return null;
        const { id, action, applicationId, occurredAt, dataForm, data, changes } = toEvent(row.event);
        return { id: candidate.id, attempts: row.attempts, endpoint: row.endpoint, event: { id, type: action, applicationId, occurredAt, dataForm, data, changes } };
      });
    },
    async settleWebhookDelivery(deliveryId, workerId, attempt, step, now) {
      return d.transaction(async (tx) => {
        const [held] = await d.locked(tx.select({ endpointId: dl.endpointId, leaseOwner: dl.leaseOwner, attempts: dl.attempts }).from(dl).where(eq(dl.id, deliveryId)));
        if (held === undefined) return 'lost' as const;
        if (attempt !== null) await tx.insert(at).values({ id: randomUUID(), deliveryId, ...attempt });
        if (held.leaseOwner !== workerId) return 'lost' as const;
        await tx
          .update(dl)
          .set({
            state: step.state,
            attempts: held.attempts + (attempt === null ? 0 : 1),
            ...(step.state === 'pending' ? { runAfter: step.runAfter } : {}),
            leaseOwner: null,
            leaseUntil: null,
            updatedAt: now,
          })
          .where(eq(dl.id, deliveryId));
        if (step.state === 'succeeded') {
          const wasFailing = and(eq(e.id, held.endpointId), isNotNull(e.failingSince));
          await tx.update(e).set({ failingSince: null }).where(wasFailing);
        } else if (step.state === 'failed' && step.why === 'gone') {
          await tx.update(e).set({ enabled: false, disabledReason: 'the receiver answered 410 Gone', updatedAt: now }).where(eq(e.id, held.endpointId));
        } else if (step.state === 'failed' && step.why === 'exhausted') {
          const wasPassing = and(eq(e.id, held.endpointId), isNull(e.failingSince));
          await tx.update(e).set({ failingSince: now }).where(wasPassing);
        }
        return 'settled' as const;
      });
    },
  };
}
