// Webhooks (issue 17, acceptance 1-4; docs/api.md, Webhooks): the console API, the server-side
// request forgery rule, and deliveries to a real receiver on loopback (with
// GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1), verified with the standardwebhooks library. Time moves
// only by the test's clock; attempts are made by draining the delivery worker.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearerOf, otherOwnerToken } from './console-helpers.js';
import { call, signUp, type TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, verifyDelivery, type Receiver } from '../support/webhook-receiver.js';

const HOUR = 3_600_000;

describe('webhook endpoints without GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE', () => {
  let t: TestApp;
  let app: TestApplication;
  beforeEach(async () => {
    t = await startTestApp();
    app = await createApplication(t, { device_auth: false });
  });
  afterEach(() => t.close());

  it.each([
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    // IPv4 addresses inside other IPv6 forms: NAT64, local-use NAT64, IPv4-translated, 6to4.
    'https://[64:ff9b::a9fe:a9fe]/latest/meta-data',
    'https://[64:ff9b:1::a00:1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[2002:7f00:1::1]/hook',
    // A name that resolves to a loopback address.
    'https://localhost/hook',
    'http://hooks.example.com/hook',
  ])('refuses %s with 422 WEBHOOK_URL_REFUSED', async (url) => {
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url, events: ['*'] });
    expect(res.statusCode).toBe(422);
    expect(res.json().error_code).toBe('WEBHOOK_URL_REFUSED');
  });

  it('names GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1 and spells URL in capitals when the flag would lift the refusal', async () => {
    for (const url of ['https://localhost/hook', 'http://hooks.example.com/hook', 'https://10.0.0.1/hook']) {
      const res = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url, events: ['*'] });
      expect(res.json().message).toMatch(/^URL .*; for a receiver on your own network, start the server with GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1$/);
    }
    const credentials = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: 'https://u:p@hooks.example.com/', events: ['*'] });
    expect(credentials.json().message).toBe('URL must not carry credentials');
  });

  it('refuses a PATCH to a private address as well', async () => {
    const created = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: 'https://93.184.216.34/hook', events: ['*'] });
    expect(created.statusCode).toBe(201);
    const id = created.json().endpoint.id as string;
    const res = await consoleRequest(t, 'PATCH', `/applications/${app.id}/webhooks/${id}`, { url: 'https://192.168.0.10/hook' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error_code).toBe('WEBHOOK_URL_REFUSED');
  });

  it('creates, lists, patches and deletes an endpoint; the secret is shown once', async () => {
    const created = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, {
      url: 'https://93.184.216.34/hook',
      events: ['user.created', 'ban.created'],
      description: 'CRM',
    });
    expect(created.statusCode).toBe(201);
    const { endpoint, secret } = created.json();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ url: 'https://93.184.216.34/hook', events: ['user.created', 'ban.created'], description: 'CRM', enabled: true, failing_since: null, disabled_reason: null });

    const list = await consoleRequest(t, 'GET', `/applications/${app.id}/webhooks`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([endpoint]);
    expect(list.body).not.toContain(secret.slice(6));

    const patched = await consoleRequest(t, 'PATCH', `/applications/${app.id}/webhooks/${endpoint.id}`, { events: ['*'], enabled: false });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ events: ['*'], enabled: false, url: endpoint.url });

    const rotated = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${endpoint.id}/rotate_secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).not.toBe(secret);

    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/webhooks/${endpoint.id}`)).statusCode).toBe(204);
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/webhooks/${endpoint.id}`)).json().error_code).toBe('WEBHOOK_NOT_FOUND');
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/webhooks`)).json()).toEqual([]);
  });

  it('validates event names against the list of webhook events', async () => {
    for (const events of [['user.nonsense'], [], ['*', 'user.created'], ['owner.signed_in']]) {
      const res = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: 'https://93.184.216.34/hook', events });
      expect(res.statusCode, JSON.stringify(events)).toBe(422);
      expect(res.json().error_code).toBe('VALIDATION_FAILED');
    }
  });

  it("answers 404 for another owner's application and endpoint", async () => {
    const created = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: 'https://93.184.216.34/hook', events: ['*'] });
    const id = created.json().endpoint.id as string;
    const other = bearerOf(await otherOwnerToken(t));
    const asOther = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      t.inject({ method, url: `/api/console/applications/${app.id}${url}`, headers: other, ...(payload ? { payload } : {}) });
    for (const res of [
      await asOther('GET', '/webhooks'),
      await asOther('POST', '/webhooks', { url: 'https://93.184.216.34/x', events: ['*'] }),
      await asOther('PATCH', `/webhooks/${id}`, { enabled: false }),
      await asOther('DELETE', `/webhooks/${id}`),
      await asOther('POST', `/webhooks/${id}/rotate_secret`),
      await asOther('POST', `/webhooks/${id}/test`),
      await asOther('GET', `/webhooks/${id}/deliveries`),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error_code).toBe('APPLICATION_NOT_FOUND');
    }
    // An endpoint of another application of the same owner is no endpoint of this one.
    const second = await createApplication(t, { device_auth: false });
    const res = await consoleRequest(t, 'PATCH', `/applications/${second.id}/webhooks/${id}`, { enabled: false });
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('WEBHOOK_NOT_FOUND');
  });
});

describe('webhook deliveries (receivers on loopback)', () => {
  let t: TestApp;
  let app: TestApplication;
  let receivers: Receiver[];
  beforeEach(async () => {
    t = await startTestApp({ webhooksAllowPrivate: true });
    app = await createApplication(t, { device_auth: false });
    receivers = [];
  });
  afterEach(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  async function endpoint(url: string, events: string[] = ['*']): Promise<{ id: string; secret: string }> {
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url, events });
    if (res.statusCode !== 201) throw new Error(`create webhook: ${res.statusCode} ${res.body}`);
    return { id: res.json().endpoint.id, secret: res.json().secret };
  }

  const deliveries = async (id: string) => (await consoleRequest(t, 'GET', `/applications/${app.id}/webhooks/${id}/deliveries`)).json();

  it('delivers each event once per subscribed endpoint, signed, secret-free, in the documented shape', async () => {
    const [all, created, deleted, off] = [await receiver(), await receiver(), await receiver(), await receiver()];
    const a = await endpoint(all.url);
    const c = await endpoint(created.url, ['user.created']);
    await endpoint(deleted.url, ['user.deleted']);
    const o = await endpoint(off.url);
    await consoleRequest(t, 'PATCH', `/applications/${app.id}/webhooks/${o.id}`, { enabled: false });

    const user = await signUp(t, app, 'alice', 'password123');
    // The request returned before any delivery was attempted.
    expect(all.received).toHaveLength(0);
    expect(await t.webhooks.drain()).toBe(2);
    expect(await t.webhooks.drain()).toBe(0);

    expect(all.received).toHaveLength(1);
    expect(created.received).toHaveLength(1);
    expect(deleted.received).toHaveLength(0);
    expect(off.received).toHaveLength(0);
    const [toAll] = all.received;
    const [toCreated] = created.received;
    expect(toAll!.headers['content-type']).toBe('application/json');
    expect(toAll!.headers['webhook-id']).toBe(toCreated!.headers['webhook-id']);
    expect(Number(toAll!.headers['webhook-timestamp'])).toBe(Math.floor(t.clock.now() / 1000));
    const body = verifyDelivery(a.secret, toAll!) as Record<string, unknown>;
    expect(verifyDelivery(c.secret, toCreated!)).toEqual(body);
    expect(() => verifyDelivery(c.secret, toAll!)).toThrow();
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'application_id', 'data']);
    expect(body).toMatchObject({
      type: 'user.created',
      timestamp: new Date(t.clock.now()).toISOString(),
      application_id: app.id,
      data: { user: { id: user.id, username: 'alice' }, source: 'sign_up' },
    });
    for (const secret of [a.secret, c.secret, 'password123', 'argon2']) expect(toAll!.body).not.toContain(secret);

    const [delivery] = await deliveries(a.id);
    expect(delivery).toMatchObject({ event_type: 'user.created', state: 'succeeded', next_attempt_at: null, event_id: toAll!.headers['webhook-id'] });
    expect(delivery.attempts).toEqual([expect.objectContaining({ status_code: 200, error: null, response_body: 'ok' })]);
  });

  it("makes deliveries from the committed event, not inside the change's transaction", async () => {
    const r = await receiver();
    const e = await endpoint(r.url);
    await signUp(t, app, 'alice', 'password123');
    // The sign-up committed its event only; the delivery worker fans it out.
    expect(await deliveries(e.id)).toEqual([]);
    expect(await t.webhooks.drain()).toBe(1);
    expect(await deliveries(e.id)).toEqual([expect.objectContaining({ event_type: 'user.created', state: 'succeeded' })]);
  });

  it('a change that rolled back (USERNAME_TAKEN) delivers nothing', async () => {
    const r = await receiver();
    await endpoint(r.url);
    await signUp(t, app, 'alice', 'password123');
    expect((await call(t, app, 'POST', '/sign_up', { username: 'ALICE', password: 'password123' })).statusCode).toBe(422);
    await t.webhooks.drain();
    expect(r.received).toHaveLength(1);
  });

  it('retries a failing receiver on the schedule with the same webhook-id', async () => {
    const r = await receiver();
    const e = await endpoint(r.url);
    r.script({ status: 500, body: 'boom' }, { status: 302, headers: { location: 'http://127.0.0.1:1/' } });
    await signUp(t, app, 'alice', 'password123');
    expect(await t.webhooks.drain()).toBe(1);
    // Not yet due: the first retry waits about 5 s.
    t.clock.advance(4_000);
    expect(await t.webhooks.drain()).toBe(0);
    t.clock.advance(2_000);
    expect(await t.webhooks.drain()).toBe(1);
    // The redirect was not followed; the next retry waits about 5 minutes.
    t.clock.advance(4 * 60_000);
    expect(await t.webhooks.drain()).toBe(0);
    t.clock.advance(2 * 60_000);
    expect(await t.webhooks.drain()).toBe(1);

    expect(r.received).toHaveLength(3);
    const ids = new Set(r.received.map((x) => x.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const x of r.received) verifyDelivery(e.secret, x);
    const [delivery] = await deliveries(e.id);
    expect(delivery.state).toBe('succeeded');
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 302, 200]);
    expect(delivery.attempts[0]).toMatchObject({ response_body: 'boom', error: 'the receiver answered 500' });
  });

  it('honours Retry-After', async () => {
    const r = await receiver();
    const e = await endpoint(r.url);
    r.script({ status: 503, headers: { 'retry-after': '3600' } });
    await signUp(t, app, 'alice', 'password123');
    await t.webhooks.drain();
    const [delivery] = await deliveries(e.id);
    expect(delivery.next_attempt_at).toBe(new Date(t.clock.now() + HOUR).toISOString());
  });

  it('410 disables the endpoint and fails the delivery', async () => {
    const r = await receiver();
    const e = await endpoint(r.url);
    r.script({ status: 410 });
    await signUp(t, app, 'alice', 'password123');
    await t.webhooks.drain();
    const [listed] = (await consoleRequest(t, 'GET', `/applications/${app.id}/webhooks`)).json();
    expect(listed).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('410') });
    expect((await deliveries(e.id))[0].state).toBe('failed');
    // Nothing more goes to it but a test; turning it back on clears the reason.
    await signUp(t, app, 'bob', 'password123');
    expect(await t.webhooks.drain()).toBe(0);
    expect((await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${e.id}/test`)).statusCode).toBe(204);
    expect(await t.webhooks.drain()).toBe(1);
    expect(r.received.map((x) => JSON.parse(x.body).type)).toEqual(['user.created', 'webhook.test']);
    const again = await consoleRequest(t, 'PATCH', `/applications/${app.id}/webhooks/${e.id}`, { enabled: true });
    expect(again.json()).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it('marks the endpoint failing after the last attempt, and a success clears it', async () => {
    const r = await receiver();
    const e = await endpoint(r.url);
    r.script(...Array.from({ length: 8 }, () => ({ status: 500 })));
    await signUp(t, app, 'alice', 'password123');
    for (let i = 0; i < 8; i++) {
      expect(await t.webhooks.drain()).toBe(1);
      t.clock.advance(11 * HOUR);
    }
    expect(r.received).toHaveLength(8);
    const [delivery] = await deliveries(e.id);
    expect(delivery).toMatchObject({ state: 'failed', next_attempt_at: null });
    expect(delivery.attempts).toHaveLength(8);
    const [listed] = (await consoleRequest(t, 'GET', `/applications/${app.id}/webhooks`)).json();
    expect(listed.failing_since).not.toBeNull();
    expect(listed.enabled).toBe(true);

    // A redelivery is one more attempt of the same event; its success clears the mark.
    const redo = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${e.id}/deliveries/${delivery.id}/redeliver`);
    expect(redo.statusCode).toBe(204);
    expect(await t.webhooks.drain()).toBe(1);
    expect(r.received).toHaveLength(9);
    expect(r.received[8]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
    expect((await deliveries(e.id))[0].state).toBe('succeeded');
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/webhooks`)).json()[0].failing_since).toBeNull();
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const r = await receiver();
    const e = await endpoint(r.url);
    const rotated = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${e.id}/rotate_secret`);
    const fresh = rotated.json().secret as string;
    await signUp(t, app, 'alice', 'password123');
    await t.webhooks.drain();
    const [first] = r.received;
    expect(String(first!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyDelivery(fresh, first!);
    verifyDelivery(e.secret, first!);

    t.clock.advance(24 * HOUR + 1);
    await signUp(t, app, 'bob', 'password123');
    await t.webhooks.drain();
    const second = r.received[1]!;
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verifyDelivery(fresh, second);
    expect(() => verifyDelivery(e.secret, second)).toThrow();
  });

  it('sends webhook.test to the tested endpoint only', async () => {
    const [one, two] = [await receiver(), await receiver()];
    const e1 = await endpoint(one.url);
    await endpoint(two.url);
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${e1.id}/test`);
    expect(res.statusCode).toBe(204);
    expect(await t.webhooks.drain()).toBe(1);
    expect(two.received).toHaveLength(0);
    expect(verifyDelivery(e1.secret, one.received[0]!)).toMatchObject({ type: 'webhook.test', application_id: app.id, data: { endpoint_id: e1.id } });
  });

  it('records a receiver that cannot be reached as an attempt without a status, and retries it', async () => {
    const r = await receiver();
    const gone = r.url;
    await r.close();
    receivers = [];
    const e = await endpoint(gone);
    await signUp(t, app, 'alice', 'password123');
    expect(await t.webhooks.drain()).toBe(1);
    const [delivery] = await deliveries(e.id);
    expect(delivery.state).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: expect.stringContaining('ECONNREFUSED') });
  });

  it('redeliver answers 404 for a delivery of another endpoint', async () => {
    const r = await receiver();
    const e1 = await endpoint(r.url);
    const e2 = await endpoint(r.url);
    await signUp(t, app, 'alice', 'password123');
    await t.webhooks.drain();
    const [d1] = await deliveries(e1.id);
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${e2.id}/deliveries/${d1.id}/redeliver`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('WEBHOOK_DELIVERY_NOT_FOUND');
  });
});
