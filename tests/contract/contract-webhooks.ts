// Webhooks in the store: the fan-out of recorded events to deliveries after the change's commit
// (subscriptions, enabled endpoints, webhook.test to its endpoint, exactly once under races), and the delivery queue (claims under leases, settling,
// a takeover after a lapsed lease, claims raced over two connections).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { EventDraft } from '../../src/application/events/event-draft.js';
import type { Store } from '../../src/application/ports/store.js';
import type { WebhookEndpointRecord } from '../../src/application/ports/webhook-store.js';
import type { ContractContext } from './store-contract.js';
import { seedApp, T0 } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';

const LEASE = 60_000;

const endpointOf = (applicationId: string, over: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  id: randomUUID(),
  applicationId,
  url: 'https://93.184.216.34/hook',
  events: ['*'],
  description: null,
  enabled: true,
  secretSealed: 'sealed',
  previousSecretSealed: null,
  previousSecretUntil: null,
  failingSince: null,
  disabledReason: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

const draftOf = (applicationId: string, action: string, targetId: string = randomUUID()): EventDraft => ({
  applicationId,
  action,
  target: { type: 'user', id: targetId, label: 'alice' },
  data: { hello: 'world' },
});

async function endpoint(store: Store, applicationId: string, over: Partial<WebhookEndpointRecord> = {}) {
  const e = endpointOf(applicationId, over);
  await store.insertWebhookEndpoint(e, SYSTEM);
  return e;
}

export function webhookContract({ store, connect, test, section }: ContractContext): void {
  section('webhooks', () => {
    test('a recorded event becomes one pending delivery per enabled endpoint subscribed to it', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const all = await endpoint(store(), app.id);
      const created = await endpoint(store(), app.id, { events: ['user.created'] });
      const deleted = await endpoint(store(), app.id, { events: ['user.deleted'] });
      const off = await endpoint(store(), app.id, { enabled: false });
      const elsewhere = await endpoint(store(), other.id);
      await store().recordEvent(draftOf(app.id, 'user.created'), T0, SYSTEM);
      // Audit-only actions reach no endpoint.
      await store().recordEvent(draftOf(app.id, 'owner.signed_in'), T0, SYSTEM);
      expect(await store().fanOutWebhookEvents(T0, 100)).toBe(1);
      const count = async (e: WebhookEndpointRecord) => (await store().listWebhookDeliveries(e.applicationId, e.id, 10)).length;
      expect([await count(all), await count(created), await count(deleted), await count(off), await count(elsewhere)]).toEqual([1, 1, 0, 0, 0]);
      const [d] = await store().listWebhookDeliveries(app.id, all.id, 10);
      expect(d).toMatchObject({ eventType: 'user.created', state: 'pending', attempts: [], runAfter: T0, createdAt: T0 });
    });

    test("a change's transaction makes no delivery; the fan-out after it makes each one once", async () => {
      const { app } = await seedApp(store());
      const endpoints = await Promise.all(Array.from({ length: 5 }, () => endpoint(store(), app.id)));
      await store().recordEvent(draftOf(app.id, 'user.created'), T0, SYSTEM);
      const count = async () => (await Promise.all(endpoints.map((e) => store().listWebhookDeliveries(app.id, e.id, 10)))).flat().length;
      expect(await count()).toBe(0);
      expect(await store().fanOutWebhookEvents(T0 + 1, 100)).toBe(1);
      expect(await count()).toBe(5);
      expect(await store().fanOutWebhookEvents(T0 + 2, 100)).toBe(0);
      expect(await count()).toBe(5);
    });

    test('an endpoint added after an event, before its fan-out, gets none of it', async () => {
      const { app } = await seedApp(store());
      const before = await endpoint(store(), app.id, { createdAt: T0 });
      await store().recordEvent(draftOf(app.id, 'user.created'), T0 + 10, SYSTEM);
      const after = await endpoint(store(), app.id, { createdAt: T0 + 20 });
      await store().fanOutWebhookEvents(T0 + 30, 100);
      expect(await store().listWebhookDeliveries(app.id, before.id, 10)).toHaveLength(1);
      expect(await store().listWebhookDeliveries(app.id, after.id, 10)).toHaveLength(0);
    });

    test('fan-outs racing over two connections make each delivery once, in batches', async () => {
      const { app } = await seedApp(store());
      const [a, b] = [await endpoint(store(), app.id), await endpoint(store(), app.id)];
      for (let i = 0; i < 30; i++) await store().recordEvent(draftOf(app.id, 'user.created'), T0 + i, SYSTEM);
      const peer = await connect();
      const taken = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? store() : peer).fanOutWebhookEvents(T0 + 100, 7)));
      let total = taken.reduce((x, y) => x + y, 0);
      while (total < 30) total += await store().fanOutWebhookEvents(T0 + 100, 7);
      expect(total).toBe(30);
      for (const e of [a, b]) {
        const list = await store().listWebhookDeliveries(app.id, e.id, 100);
        expect(list).toHaveLength(30);
        expect(new Set(list.map((d) => d.eventId)).size).toBe(30);
      }
      expect(await store().fanOutWebhookEvents(T0 + 200, 7)).toBe(0);
    });

    test('webhook.test goes to the endpoint it tests only, even a disabled one', async () => {
      const { app } = await seedApp(store());
      const tested = await endpoint(store(), app.id, { enabled: false });
      const bystander = await endpoint(store(), app.id);
      await store().recordEvent({ ...draftOf(app.id, 'webhook.test', tested.id), target: { type: 'webhook_endpoint', id: tested.id, label: null } }, T0, SYSTEM);
      await store().fanOutWebhookEvents(T0, 100);
      expect(await store().listWebhookDeliveries(app.id, tested.id, 10)).toHaveLength(1);
      expect(await store().listWebhookDeliveries(app.id, bystander.id, 10)).toHaveLength(0);
    });

    test('a claimed delivery is held until its lease lapses; a late settlement is recorded but changes nothing', async () => {
      const { app } = await seedApp(store());
      const e = await endpoint(store(), app.id);
      await store().recordEvent(draftOf(app.id, 'user.created'), T0, SYSTEM);
      await store().fanOutWebhookEvents(T0, 100);
      expect(await store().claimWebhookDelivery('w1', T0 - 1, LEASE)).toBeNull();
      const claimed = await store().claimWebhookDelivery('w1', T0, LEASE);
      expect(claimed).toMatchObject({
        attempts: 0,
        endpoint: { id: e.id, url: e.url, enabled: true, secretSealed: 'sealed' },
        event: { type: 'user.created', applicationId: app.id, occurredAt: T0, data: { hello: 'world' } },
      });
      expect(await store().claimWebhookDelivery('w2', T0 + LEASE - 1, LEASE)).toBeNull();
      const takeover = await store().claimWebhookDelivery('w2', T0 + LEASE, LEASE);
      expect(takeover?.id).toBe(claimed?.id);
      const attempt = { attemptedAt: T0 + 10, statusCode: 500, latencyMs: 3, error: 'the receiver answered 500', responseBody: 'no' };
      expect(await store().settleWebhookDelivery(claimed!.id, 'w1', attempt, { state: 'succeeded' }, T0 + 20)).toBe('lost');
      expect(await store().settleWebhookDelivery(claimed!.id, 'w2', { ...attempt, attemptedAt: T0 + LEASE, statusCode: 200, error: null }, { state: 'succeeded' }, T0 + LEASE + 5)).toBe('settled');
      const [d] = await store().listWebhookDeliveries(app.id, e.id, 10);
      expect(d?.state).toBe('succeeded');
      expect(d?.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
      expect(await store().claimWebhookDelivery('w3', T0 + 10 * LEASE, LEASE)).toBeNull();
    });

    test('settling: a retry waits, exhaustion marks the endpoint failing, a success clears it, 410 disables it', async () => {
      const { app } = await seedApp(store());
      const e = await endpoint(store(), app.id);
      const attempt = { attemptedAt: T0, statusCode: 503, latencyMs: 1, error: 'x', responseBody: null };
      await store().recordEvent(draftOf(app.id, 'user.created'), T0, SYSTEM);
      await store().fanOutWebhookEvents(T0, 100);
      let c = await store().claimWebhookDelivery('w', T0, LEASE);
      await store().settleWebhookDelivery(c!.id, 'w', attempt, { state: 'pending', runAfter: T0 + 5000 }, T0);
      expect(await store().claimWebhookDelivery('w', T0 + 4999, LEASE)).toBeNull();
      c = await store().claimWebhookDelivery('w', T0 + 5000, LEASE);
      expect(c?.attempts).toBe(1);
      await store().settleWebhookDelivery(c!.id, 'w', attempt, { state: 'failed', why: 'exhausted' }, T0 + 6000);
      expect((await store().findWebhookEndpoint(app.id, e.id))?.failingSince).toBe(T0 + 6000);

      expect(await store().redeliverWebhook(app.id, e.id, c!.id, T0 + 7000)).toBe(true);
      c = await store().claimWebhookDelivery('w', T0 + 7000, LEASE);
      expect(c?.event.id).toBeDefined();
      await store().settleWebhookDelivery(c!.id, 'w', { ...attempt, statusCode: 204 }, { state: 'succeeded' }, T0 + 8000);
      expect((await store().findWebhookEndpoint(app.id, e.id))?.failingSince).toBeNull();

      await store().recordEvent(draftOf(app.id, 'user.created'), T0 + 9000, SYSTEM);
      await store().fanOutWebhookEvents(T0 + 9000, 100);
      c = await store().claimWebhookDelivery('w', T0 + 9000, LEASE);
      await store().settleWebhookDelivery(c!.id, 'w', { ...attempt, statusCode: 410 }, { state: 'failed', why: 'gone' }, T0 + 9000);
      expect(await store().findWebhookEndpoint(app.id, e.id)).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('410') });
    });

    test('rotation keeps the replaced secret beside the new one', async () => {
      const { app } = await seedApp(store());
      const e = await endpoint(store(), app.id, { secretSealed: 'first' });
      const rotated = await store().rotateWebhookSecret(app.id, e.id, 'second', T0 + 1000, T0, SYSTEM);
      expect(rotated).toMatchObject({ secretSealed: 'second', previousSecretSealed: 'first', previousSecretUntil: T0 + 1000 });
      expect(await store().rotateWebhookSecret(app.id, randomUUID(), 'x', T0, T0, SYSTEM)).toBeNull();
    });

    test('parallel claims over two connections take each delivery once', async () => {
      const { app } = await seedApp(store());
      await endpoint(store(), app.id);
      for (let i = 0; i < 10; i++) await store().recordEvent(draftOf(app.id, 'user.created'), T0 + i, SYSTEM);
      await store().fanOutWebhookEvents(T0 + 100, 100);
      const peer = await connect();
      const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? store() : peer).claimWebhookDelivery(`w${i}`, T0 + 100, LEASE)));
      const ids = claims.filter((c) => c !== null).map((c) => c.id);
      expect(ids).toHaveLength(10);
      expect(new Set(ids).size).toBe(10);
    });
  });
}
