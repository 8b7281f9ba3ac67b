// Issue 17, acceptance 1, for every event: a scenario that makes each event of docs/events.md
// (but user.deleted, which nothing in Gatehouse makes), delivered to receivers on loopback. Each
// recorded event arrives once at every endpoint subscribed to it, with its id as webhook-id,
// verifies with the standardwebhooks library, and carries no secret.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWebhookEvent, WEBHOOK_EVENTS } from '../../src/application/events/event-draft.js';
import { JOB_MAX_ATTEMPTS, retryDelay } from '../../src/domain/files.js';
import { processAll, upload } from '../support/files.js';
import { call, login, signUp, type TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, verifyDelivery, type Receiver } from '../support/webhook-receiver.js';
import { shown } from '../support/shown-events.js';

/** Events the scenario cannot make, and why. */
const NOT_MADE: Record<string, string> = { 'user.deleted': 'Gatehouse has no way to delete a single end user (docs/events.md)' };

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
let receivers: Receiver[] = [];
beforeEach(async () => {
  t = await startTestApp({ webhooksAllowPrivate: true, limits: { lockoutThreshold: 3 } });
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 1, ban_propagation: true, ban_propagation_to_addresses: true, sign_ups_per_hour: 1 });
});
afterEach(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

const PASSWORD = 'user-password-1';

async function endpoint(events: string[]): Promise<{ id: string; secret: string; receiver: Receiver }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const res = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: receiver.url, events });
  expect(res.statusCode, res.body).toBe(201);
  return { id: res.json().endpoint.id, secret: res.json().secret, receiver };
}

/** Every change of docs/events.md once or more; returns what a leak would show. */
async function makeEveryEvent(a: TestApplication, allId: string): Promise<string[]> {
  const secrets: string[] = [PASSWORD, app.credentials.api_secret, app.credentials.admin_api_key, app.credentials.files_encryption_key];
  const codes = await createLicenses(t, app.id, 3, 60); // license.created
  secrets.push(...codes);
  expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${codes[2]}`)).statusCode).toBe(204); // license.deleted
  const user = await signUp(t, a, 'alice', PASSWORD, { hardware_id: 'hw-a' }); // user.created, device.registered, sign_up.limited
  expect((await call(t, a, 'POST', '/activate_license', { code: codes[0], username: 'alice', password: PASSWORD, hardware_id: 'hw-a' })).statusCode).toBe(200); // license.activated
  for (const name of ['Basic', 'Pro']) {
    // A minute each, so the expiry notices below come as they would without them.
    const plan = (await consoleRequest(t, 'POST', `/applications/${app.id}/plans`, { name, kind: 'base', duration_minutes: 1 })).json();
    const [planCode] = (await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count: 1, plan_id: plan.id })).json().licenses;
    secrets.push(planCode.code);
    expect((await call(t, a, 'POST', '/activate_license', { code: planCode.code, username: 'alice', password: PASSWORD, hardware_id: 'hw-a' })).statusCode).toBe(200); // membership.plan_changed, the second
  }
  const session = await login(t, a, { username: 'alice', password: PASSWORD }, { hardware_id: 'hw-a' }); // session.created
  expect(session.statusCode).toBe(200);
  secrets.push(session.json().session_token);
  expect((await login(t, a, { username: 'alice', password: PASSWORD }, { hardware_id: 'hw-other' })).json().error_code).toBe('DEVICE_LIMIT_REACHED'); // device.limit_reached
  expect((await call(t, a, 'POST', '/auth/logout', undefined, { headers: { authorization: `Bearer ${session.json().session_token}` } })).statusCode).toBe(204); // session.revoked
  const kept = (await login(t, a, { username: 'alice', password: PASSWORD }, { hardware_id: 'hw-a', remember: true })).json().refresh_token as string;
  secrets.push(kept);
  expect((await call(t, a, 'POST', '/auth/refresh', { refresh_token: kept, hardware_id: 'hw-a' })).statusCode).toBe(200);
  expect((await call(t, a, 'POST', '/auth/refresh', { refresh_token: kept, hardware_id: 'hw-a' })).json().error_code).toBe('REFRESH_REUSED'); // refresh.reused
  expect((await consoleRequest(t, 'POST', `/applications/${app.id}/adjustments`, { user_ids: [user.id], minutes: 30 })).statusCode).toBe(200); // membership.adjusted
  expect(await t.notices.drain()).toBe(1); // membership.expiring: 90 minutes remain, less than 7 days
  const until = new Date(t.clock.now() + 3_600_000).toISOString();
  expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${user.id}/timeout`, { until })).statusCode).toBe(200); // user.timed_out
  expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${user.id}/timeout`)).statusCode).toBe(204); // user.timeout_lifted
  const page = (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${user.id}`)).json();
  expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${user.id}/devices/${page.registered_devices[0].id}`)).statusCode).toBe(204); // device.removed
  for (let i = 0; i < 3; i++) await login(t, a, { username: 'alice', password: 'wrong-password' }, { hardware_id: 'hw-a' }); // auth.locked
  const ban = (await consoleRequest(t, 'POST', `/applications/${app.id}/bans`, { type: 'ip', value: '203.0.113.9' })).json(); // ban.created
  expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${ban.id}`)).statusCode).toBe(204); // ban.removed
  expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/motd`, { value: 'hello', is_public: true })).statusCode).toBe(200); // variable.changed
  const news = { title: 'News', content_html: '<p>hi</p>', status: 'DRAFT', publish_from: new Date(t.clock.now()).toISOString() };
  expect((await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, news)).statusCode).toBe(201); // announcement.changed
  expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { session_ttl_seconds: 900 })).statusCode).toBe(200); // application.settings_changed
  const rotated = (await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/api_secret/rotate`)).json(); // application.credentials_rotated
  secrets.push(rotated.api_secret);

  const admin = `Bearer ${app.credentials.admin_api_key}`;
  const stored = await upload(t, 'POST', '/api/admin/files', admin, { name: 'ok.bin', is_public: 'false', store_encrypted: 'false' }, { content: Buffer.from('payload') });
  expect(stored.statusCode).toBe(201);
  await processAll(t); // file.completed
  expect((await t.inject({ method: 'DELETE', url: `/api/admin/files/${stored.json().id}`, headers: { authorization: admin } })).statusCode).toBe(204); // file.deleted
  // An upload whose staged bytes are gone fails every attempt, then for good: file.failed.
  const doomed = await upload(t, 'POST', '/api/admin/files', admin, { name: 'doomed.bin', is_public: 'false', store_encrypted: 'false' }, { content: Buffer.from('lost') });
  expect(doomed.statusCode).toBe(201);
  for await (const blob of t.deps.blobs.list('staging/')) await t.deps.blobs.delete(blob.key);
  for (let attempt = 1; attempt <= JOB_MAX_ATTEMPTS; attempt++) {
    await processAll(t);
    t.clock.advance(retryDelay(attempt));
  }
  expect((await t.inject({ method: 'GET', url: `/api/admin/files/${doomed.json().id}`, headers: { authorization: admin } })).json().processing_status).toBe('FAILED');

  t.clock.advance(2 * 3_600_000);
  expect(await t.notices.drain()).toBe(1); // membership.expired
  // Alice holds a plan; Bob, new, may start the application's trial.
  const trial = (await consoleRequest(t, 'POST', `/applications/${app.id}/plans`, { name: 'Trial', kind: 'base', duration_minutes: 60, trial: true })).json();
  expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { trial_plan_id: trial.id })).statusCode).toBe(200);
  const rotatedApp = { id: a.id, headers: { ...a.headers, 'x-api-secret': rotated.api_secret } };
  await signUp(t, rotatedApp, 'bob', PASSWORD, { hardware_id: 'hw-b' });
  const started = await call(t, rotatedApp, 'POST', '/start_trial', { credentials: { username: 'bob', password: PASSWORD }, hardware_id: 'hw-b' });
  expect(started.statusCode, started.body).toBe(200); // trial.started
  // A floating license of one seat, borrowed and returned by Carol; Dave finds no seat.
  const floating = (await consoleRequest(t, 'POST', `/applications/${app.id}/plans`, { name: 'Floating', kind: 'base', duration_minutes: 600, floating: true, max_borrow_minutes: 60 })).json();
  const [seatCode] = (await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count: 1, plan_id: floating.id })).json().licenses;
  secrets.push(seatCode.code);
  for (const hw of ['hw-c', 'hw-d']) {
    t.clock.advance(3_600_000); // one sign-up an hour
    expect((await call(t, rotatedApp, 'POST', '/sign_up_with_license_code', { code: seatCode.code, hardware_id: hw })).statusCode).toBe(201);
  }
  const carol = (await login(t, rotatedApp, { code: seatCode.code }, { hardware_id: 'hw-c' })).json().session_token;
  secrets.push(carol);
  expect((await call(t, rotatedApp, 'POST', '/borrow', { hardware_id: 'hw-c', minutes: 30 }, { headers: { authorization: `Bearer ${carol}` } })).statusCode).toBe(200); // seat.borrowed
  expect((await call(t, rotatedApp, 'POST', '/return', { hardware_id: 'hw-c' }, { headers: { authorization: `Bearer ${carol}` } })).statusCode).toBe(204); // seat.returned
  expect((await login(t, rotatedApp, { code: seatCode.code }, { hardware_id: 'hw-d' })).json().error_code).toBe('SEATS_EXHAUSTED'); // seat.exhausted
  expect((await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${allId}/test`)).statusCode).toBe(204); // webhook.test
  return secrets;
}

describe('every webhook event, delivered', () => {
  it('arrives once per subscribed endpoint, verifies with standardwebhooks, and carries no secret', async () => {
    const all = await endpoint(['*']);
    const some = await endpoint(['license.activated', 'ban.created', 'file.failed']);
    const secrets = await makeEveryEvent({ id: app.id, headers: app.headers }, all.id);
    // Deliveries retried on the schedule are not the point here: every receiver answers 200.
    while ((await t.webhooks.drain()) > 0);

    const recorded = (await t.store.listEvents(app.id, {}, { limit: 1000 })).map(shown).filter((e) => isWebhookEvent(e.action));
    expect(new Set(recorded.map((e) => e.action))).toEqual(new Set(WEBHOOK_EVENTS.filter((name) => !(name in NOT_MADE))));

    for (const [target, wants] of [
      [all, () => true],
      [some, (action: string) => ['license.activated', 'ban.created', 'file.failed'].includes(action)],
    ] as const) {
      const expected = recorded.filter((e) => wants(e.action));
      const ids = target.receiver.received.map((r) => r.headers['webhook-id']);
      expect(ids.length, 'one delivery per event').toBe(new Set(ids).size);
      expect(new Set(ids)).toEqual(new Set(expected.map((e) => e.id)));
      for (const received of target.receiver.received) {
        const body = verifyDelivery(target.secret, received) as { type: string; application_id: string; data: unknown };
        const event = expected.find((e) => e.id === received.headers['webhook-id'])!;
        expect(body).toEqual({ type: event.action, timestamp: new Date(event.occurredAt).toISOString(), application_id: app.id, data: event.data });
        for (const secret of [...secrets, all.secret, some.secret, '$argon2']) expect(received.body, `${event.action} carries a secret`).not.toContain(secret);
      }
    }
    // webhook.test went to the endpoint it tested only.
    expect(some.receiver.received.map((r) => JSON.parse(r.body).type)).not.toContain('webhook.test');
  });
});
