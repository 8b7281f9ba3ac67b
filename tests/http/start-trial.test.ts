// Trials (docs/plans.md, "Trials"; docs/api.md, POST /start_trial): the application's trial plan
// granted once per user and once per machine per application, for ever; its setting checked and
// kept in use; trial.started delivered once. Every refusal writes nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, expectError, login, member, signUp, type TestApplication } from '../support/integration.js';
import { sqlBehindTheServer } from '../support/sql-behind-the-server.js';
import { consoleRequest, createApplication, T0, type TestApp, startTestApp } from '../support/test-app.js';
import { startReceiver, verifyDelivery, type Receiver } from '../support/webhook-receiver.js';

const PASSWORD = 'trial-password-1';
const TWO_WEEKS_MINUTES = 14 * 24 * 60;
const HW1 = 'HW-1';

let t: TestApp;
let app: TestApplication;
let trialPlanId: string;
beforeEach(async () => {
  t = await startTestApp({ webhooksAllowPrivate: true });
  ({ app, planId: trialPlanId } = await offeringATrial());
});
afterEach(() => t.close());

async function plan(appId: string, body: Record<string, unknown>): Promise<string> {
  const res = await consoleRequest(t, 'POST', `/applications/${appId}/plans`, { kind: 'base', duration_minutes: TWO_WEEKS_MINUTES, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

/** An application with device auth, one device a user, and a two-week trial plan named. */
async function offeringATrial(settings: Record<string, unknown> = {}): Promise<{ app: TestApplication; planId: string }> {
  const created = await createApplication(t, { device_auth: true, default_allowed_devices: 1, device_reset_cooldown_hours: 1, ...settings });
  const planId = await plan(created.id, { name: 'Trial', trial: true, entitlements: ['export'] });
  const named = await consoleRequest(t, 'PATCH', `/applications/${created.id}`, { trial_plan_id: planId });
  expect(named.statusCode, named.body).toBe(200);
  expect(named.json().trial_plan_id).toBe(planId);
  return { app: { id: created.id, headers: created.headers }, planId };
}

const startTrial = (on: TestApplication, credentials: Record<string, string>, hardwareId = HW1) => call(t, on, 'POST', '/start_trial', { credentials, hardware_id: hardwareId });
const userPage = async (on: TestApplication, id: string) => (await consoleRequest(t, 'GET', `/applications/${on.id}/users/${id}`)).json();
const newcomer = (name: string, on = app, hardwareId = HW1) => signUp(t, on, name, PASSWORD, { hardware_id: hardwareId });

describe('POST /api/integration/start_trial', () => {
  it('grants the trial plan for its duration; the user then logs in; a second try is TRIAL_USED', async () => {
    const alice = await newcomer('alice');
    const res = await startTrial(app, { username: 'alice', password: PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    const until = new Date(T0 + TWO_WEEKS_MINUTES * 60_000).toISOString();
    expect(res.json()).toMatchObject({ id: alice.id, username: 'alice', membership: { is_active: true, is_lifetime: false, active_until: until } });
    const page = await userPage(app, alice.id);
    expect(page.membership.adjustments).toEqual([expect.objectContaining({ type: 'trial', minutes: TWO_WEEKS_MINUTES, license_id: null, grants_lifetime_access: false })]);
    expect((await login(t, app, { username: 'alice', password: PASSWORD }, { hardware_id: HW1 })).statusCode).toBe(200);

    expectError(await startTrial(app, { username: 'alice', password: PASSWORD }), 409, 'TRIAL_USED');
    t.clock.advance((TWO_WEEKS_MINUTES + 1) * 60_000);
    // Lapsed, and still the same user: the trial was hers once.
    expectError(await startTrial(app, { username: 'alice', password: PASSWORD }, 'HW-9'), 409, 'TRIAL_USED');
    expect((await userPage(app, alice.id)).membership.adjustments).toHaveLength(1);
  });

  it('refuses a second account on the same machine, also after a device reset and after the user is deleted', async () => {
    const alice = await newcomer('alice');
    expect((await startTrial(app, { username: 'alice', password: PASSWORD })).statusCode).toBe(200);
    const bob = await newcomer('bob');
    expectError(await startTrial(app, { username: 'bob', password: PASSWORD }), 409, 'TRIAL_USED');
    expect((await userPage(app, bob.id)).membership.adjustments).toEqual([]);

    expect((await call(t, app, 'POST', '/reset_devices', { username: 'alice', password: PASSWORD })).statusCode).toBe(200);
    await newcomer('carol');
    expectError(await startTrial(app, { username: 'carol', password: PASSWORD }), 409, 'TRIAL_USED');

    // Gatehouse has no route that deletes one user: the row goes as a deletion would take it.
    await sqlBehindTheServer(t, `DELETE FROM users WHERE id = '${alice.id}'`);
    await newcomer('alice');
    expectError(await startTrial(app, { username: 'alice', password: PASSWORD }), 409, 'TRIAL_USED');
    // Another machine is another trial.
    await newcomer('dave', app, 'HW-2');
    expect((await startTrial(app, { username: 'dave', password: PASSWORD }, 'HW-2')).statusCode).toBe(200);
  });

  it('parallel tries from five accounts on one machine: exactly one trial, one event', async () => {
    const names = ['user1', 'user2', 'user3', 'user4', 'user5'];
    for (const name of names) await newcomer(name);
    const results = await Promise.all(names.map((name) => startTrial(app, { username: name, password: PASSWORD })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().error_code === 'TRIAL_USED')).toBe(true);
    const audit = await consoleRequest(t, 'GET', `/applications/${app.id}/audit?action=trial.started`);
    expect(audit.json().entries).toHaveLength(1);
  });

  it('a machine that started a trial in one application may start one in another', async () => {
    const other = (await offeringATrial()).app;
    await newcomer('alice');
    await newcomer('alice', other);
    expect((await startTrial(app, { username: 'alice', password: PASSWORD })).statusCode).toBe(200);
    expect((await startTrial(other, { username: 'alice', password: PASSWORD })).statusCode).toBe(200);
  });

  it('404 TRIAL_NOT_OFFERED without a trial plan, or once the named plan is archived or no longer a trial', async () => {
    const plain = await createApplication(t, { device_auth: true });
    const none = { id: plain.id, headers: plain.headers };
    await newcomer('alice', none);
    expectError(await startTrial(none, { username: 'alice', password: PASSWORD }), 404, 'TRIAL_NOT_OFFERED');
    // Refused before the credentials are checked, as a disabled reset is.
    expectError(await startTrial(none, { username: 'alice', password: 'wrong-password-1' }), 404, 'TRIAL_NOT_OFFERED');

    await newcomer('alice');
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${trialPlanId}`, { archived: true })).statusCode).toBe(200);
    expectError(await startTrial(app, { username: 'alice', password: PASSWORD }), 404, 'TRIAL_NOT_OFFERED');
    // The settings sent back whole still save: the plan named before is not checked again.
    const resent = await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { trial_plan_id: trialPlanId, session_ttl_seconds: 600 });
    expect(resent.statusCode, resent.body).toBe(200);
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${trialPlanId}`, { archived: false, trial: false })).statusCode).toBe(200);
    expectError(await startTrial(app, { username: 'alice', password: PASSWORD }), 404, 'TRIAL_NOT_OFFERED');
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${trialPlanId}`, { trial: true })).statusCode).toBe(200);
    // Nothing was written by the refusals: the machine is still unused.
    expect((await startTrial(app, { username: 'alice', password: PASSWORD })).statusCode).toBe(200);
  });

  it('409 TRIAL_NOT_ELIGIBLE for a user with an active membership; the machine stays unused', async () => {
    await member(t, app, 'alice', PASSWORD, 60, { hardware_id: HW1 });
    expectError(await startTrial(app, { username: 'alice', password: PASSWORD }), 409, 'TRIAL_NOT_ELIGIBLE');
    await newcomer('bob');
    expect((await startTrial(app, { username: 'bob', password: PASSWORD })).statusCode).toBe(200);
  });

  it('refuses wrong credentials (401) and a banned machine (403), writing nothing', async () => {
    // Without propagation, so the ban refuses only its machine.
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { ban_propagation: false })).statusCode).toBe(200);
    await newcomer('alice');
    expectError(await startTrial(app, { username: 'alice', password: 'wrong-password-1' }), 401, 'INVALID_CREDENTIALS');
    const ban = await consoleRequest(t, 'POST', `/applications/${app.id}/bans`, { type: 'hardware_id', value: 'HW-BANNED' });
    expect(ban.statusCode, ban.body).toBe(201);
    expectError(await startTrial(app, { username: 'alice', password: PASSWORD }, 'HW-BANNED'), 403, 'BANNED');
    expect((await startTrial(app, { username: 'alice', password: PASSWORD })).statusCode).toBe(200);
  });

  it('trial.started arrives once, with the user, the plan and the adjustment', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      const hook = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: receiver.url, events: ['trial.started'] });
      expect(hook.statusCode, hook.body).toBe(201);
      const alice = await newcomer('alice');
      expect((await startTrial(app, { username: 'alice', password: PASSWORD })).statusCode).toBe(200);
      expectError(await startTrial(app, { username: 'alice', password: PASSWORD }), 409, 'TRIAL_USED');
      while ((await t.webhooks.drain()) > 0);
      expect(receiver.received).toHaveLength(1);
      const body = verifyDelivery(hook.json().secret as string, receiver.received[0]!) as { type: string; data: Record<string, unknown> };
      expect(body.type).toBe('trial.started');
      expect(body.data).toMatchObject({ user: { id: alice.id, username: 'alice' }, plan: { id: trialPlanId, name: 'Trial' }, adjustment: { type: 'trial', license_id: null } });
    } finally {
      await receiver.close();
    }
  });
});

describe('the trial_plan_id setting', () => {
  const patch = (body: unknown, on = app) => consoleRequest(t, 'PATCH', `/applications/${on.id}`, body);
  const shown = async (on = app) => (await consoleRequest(t, 'GET', `/applications/${on.id}`)).json().trial_plan_id;

  it('names a base plan of the application with trial: true, or null', async () => {
    const paid = await plan(app.id, { name: 'Pro' });
    const addOn = await plan(app.id, { name: 'Extra', kind: 'add_on', trial: false });
    const archived = await plan(app.id, { name: 'Old trial', trial: true });
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${archived}`, { archived: true })).statusCode).toBe(200);
    const elsewhere = await offeringATrial();

    expect(expectError(await patch({ trial_plan_id: paid }), 422, 'VALIDATION_FAILED').message).toContain('trial_plan_id');
    expectError(await patch({ trial_plan_id: addOn }), 422, 'VALIDATION_FAILED');
    expectError(await patch({ trial_plan_id: archived }), 422, 'PLAN_ARCHIVED');
    expectError(await patch({ trial_plan_id: elsewhere.planId }), 404, 'PLAN_NOT_FOUND');
    expectError(await patch({ trial_plan_id: '00000000-0000-4000-8000-000000000000', session_ttl_seconds: 600 }), 404, 'PLAN_NOT_FOUND');
    expectError(await patch({ trial_plan_id: 'not-a-uuid' }), 422, 'VALIDATION_FAILED');
    // Nothing written by a refusal, the other fields of its patch included.
    expect(await shown()).toBe(trialPlanId);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().session_ttl_seconds).toBe(300);

    expect((await patch({ trial_plan_id: null })).json().trial_plan_id).toBeNull();
    expect(await shown()).toBeNull();
  });

  it('a plan named as the trial plan is in use: 409 PLAN_IN_USE on delete until the setting moves', async () => {
    expectError(await consoleRequest(t, 'DELETE', `/applications/${app.id}/plans/${trialPlanId}`), 409, 'PLAN_IN_USE');
    expect((await patch({ trial_plan_id: null })).statusCode).toBe(200);
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/plans/${trialPlanId}`)).statusCode).toBe(204);
  });

  it('an application starts without one; creation does not take the field', async () => {
    const created = await createApplication(t);
    expect(await shown({ id: created.id, headers: created.headers })).toBeNull();
    const res = await consoleRequest(t, 'POST', '/applications', { name: 'With trial', trial_plan_id: trialPlanId });
    expect(res.statusCode).toBe(422);
  });
});
