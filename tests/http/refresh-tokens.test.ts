// Lasting sessions (docs/machines.md, "Refresh tokens"): login with remember, rotation, reuse that
// revokes the family, the machine binding, every refusal a login would give, and the race.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { shown } from '../support/shown-events.js';
import { sqlBehindTheServer } from '../support/sql-behind-the-server.js';
import { ban, bearer, call, expectError, login, member, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 2, default_allowed_sessions: 1 });
});
afterEach(() => t.close());

const HW = { hardware_id: 'HW-1' };
const DAY_MS = 86_400_000;

interface Remembered {
  session_token: string;
  refresh_token: string;
  refresh_expires_at: string;
}

async function remembered(on: TestApplication, credentials: Record<string, string>, hardwareId = HW.hardware_id): Promise<Remembered> {
  const res = await login(t, on, credentials, { hardware_id: hardwareId, remember: true });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Remembered>();
}

const refresh = (on: TestApplication, refreshToken: string, hardwareId = HW.hardware_id) => call(t, on, 'POST', '/auth/refresh', { refresh_token: refreshToken, hardware_id: hardwareId });
const context = (on: TestApplication, session: string) => call(t, on, 'GET', '/app_context', undefined, { headers: bearer(session) });

async function refreshed(on: TestApplication, refreshToken: string): Promise<Remembered> {
  const res = await refresh(on, refreshToken);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Remembered>();
}

/** A member with a lifetime membership, logged in with remember. */
async function alice(on = app) {
  const u = await member(t, on, 'alice', undefined, null, HW);
  return { user: u, first: await remembered(on, { username: 'alice', password: u.password }) };
}

describe('POST /auth/login with remember', () => {
  it('adds a refresh token and its expiry, refresh_ttl_days ahead; without remember there is none', async () => {
    const u = await member(t, app, 'alice', undefined, null, HW);
    const plain = await login(t, app, { username: 'alice', password: u.password }, HW);
    expect(plain.json()).not.toHaveProperty('refresh_token');
    const res = await remembered(app, { username: 'alice', password: u.password });
    expect(res.refresh_token).toMatch(/^gh_rt_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(res.refresh_expires_at)).toBe(t.clock.now() + 30 * DAY_MS);
  });

  it('works for a license-code login too', async () => {
    const [code] = await createLicenses(t, app.id, 1, null);
    expect((await call(t, app, 'POST', '/sign_up_with_license_code', { code, ...HW })).statusCode).toBe(201);
    const first = await remembered(app, { code: code as string });
    expect((await refresh(app, first.refresh_token)).statusCode).toBe(200);
  });

  it('422 naming hardware_id when remember comes without one (device auth off)', async () => {
    const open = await createApplication(t, { device_auth: false });
    const u = await member(t, open, 'bob');
    const body = expectError(await login(t, open, { username: 'bob', password: u.password }, { remember: true }), 422, 'VALIDATION_FAILED');
    expect(body).toMatchObject({ errors: [{ field: 'hardware_id' }] });
  });

  it('with refresh_ttl_days null remember is ignored, and a token issued before no longer refreshes', async () => {
    const { first } = await alice();
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { refresh_ttl_days: null })).statusCode).toBe(200);
    const res = await login(t, app, { username: 'alice', password: 'correct horse battery' }, { ...HW, remember: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).not.toHaveProperty('refresh_token');
    expectError(await refresh(app, first.refresh_token), 401, 'REFRESH_INVALID');
  });
});

describe('POST /auth/refresh', () => {
  it('rotates: a new session and token; the old session ends and the old token is spent', async () => {
    const { first } = await alice();
    t.clock.advance(10 * 60_000);
    const res = await refresh(app, first.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    const next = res.json<Remembered & { expires_at: string; membership: { is_active: boolean } }>();
    expect(next).toMatchObject({ expires_at: new Date(t.clock.now() + 5 * 60_000).toISOString(), membership: { is_active: true } });
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(Date.parse(next.refresh_expires_at)).toBe(t.clock.now() + 30 * DAY_MS);
    expect((await context(app, next.session_token)).statusCode).toBe(200);
    expectError(await context(app, first.session_token), 401, 'SESSION_EXPIRED');
    // A cap of one session: the refresh never needed a second seat; it does again and again.
    expect((await refresh(app, next.refresh_token)).statusCode).toBe(200);
  });

  it('a replayed token revokes the family: the newest session and token stop working', async () => {
    const { first } = await alice();
    const second = await refreshed(app, first.refresh_token);
    const third = await refreshed(app, second.refresh_token);
    expect((await context(app, third.session_token)).statusCode).toBe(200);
    expectError(await refresh(app, first.refresh_token), 401, 'REFRESH_REUSED');
    expectError(await context(app, third.session_token), 401, 'SESSION_EXPIRED');
    expectError(await refresh(app, third.refresh_token), 401, 'REFRESH_INVALID');
    const events = (await t.store.listEvents(app.id, {}, { limit: 100 })).map(shown).filter((e) => e.action === 'refresh.reused');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ hardware_id: HW.hardware_id, sessions_revoked: 1 });
    // A new login with the password starts a new family.
    const again = await remembered(app, { username: 'alice', password: 'correct horse battery' });
    expect((await refresh(app, again.refresh_token)).statusCode).toBe(200);
  });

  it('another machine is refused and does not spend the token', async () => {
    const { first } = await alice();
    expectError(await refresh(app, first.refresh_token, 'HW-2'), 401, 'REFRESH_INVALID');
    expect((await refresh(app, first.refresh_token)).statusCode).toBe(200);
  });

  it('unknown, expired and other applications tokens are refused', async () => {
    const { first } = await alice();
    expectError(await refresh(app, 'gh_rt_' + 'A'.repeat(43)), 401, 'REFRESH_INVALID');
    const other = await createApplication(t, { device_auth: true });
    expectError(await refresh(other, first.refresh_token), 401, 'REFRESH_INVALID');
    t.clock.advance(30 * DAY_MS);
    expectError(await refresh(app, first.refresh_token), 401, 'REFRESH_INVALID');
  });

  it('a timeout, then a user ban refuse it as a login would, spending nothing', async () => {
    const { user, first } = await alice();
    const until = new Date(t.clock.now() + 60 * 60_000).toISOString();
    expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${user.id}/timeout`, { until, reason: null })).statusCode).toBe(200);
    expectError(await refresh(app, first.refresh_token), 403, 'TIMED_OUT');
    t.clock.advance(60 * 60_000 + 1);
    const second = await refreshed(app, first.refresh_token);
    await ban(t, app, 'user', user.id);
    expectError(await refresh(app, second.refresh_token), 403, 'BANNED');
  });

  it('a ban of the machine or of the address refuses it', async () => {
    const { first } = await alice();
    await ban(t, app, 'hardware_id', HW.hardware_id);
    expectError(await refresh(app, first.refresh_token), 403, 'BANNED');
    const bob = await member(t, app, 'bob', undefined, null, { hardware_id: 'HW-9' });
    const his = await remembered(app, { username: 'bob', password: bob.password }, 'HW-9');
    await ban(t, app, 'ip', '10.9.9.9');
    expectError(await call(t, app, 'POST', '/auth/refresh', { refresh_token: his.refresh_token, hardware_id: 'HW-9' }, { ip: '10.9.9.9' }), 403, 'BANNED');
  });

  it('an ended membership refuses it', async () => {
    const u = await member(t, app, 'carol', undefined, 60, HW);
    const first = await remembered(app, { username: 'carol', password: u.password });
    t.clock.advance(61 * 60_000);
    expectError(await refresh(app, first.refresh_token), 403, 'MEMBERSHIP_INACTIVE');
  });

  it('the grace of the base plan counts, as at login, and its end refuses', async () => {
    const plan = await consoleRequest(t, 'POST', `/applications/${app.id}/plans`, { name: 'Pro', kind: 'base', duration_minutes: 60, grace_minutes: 30 });
    expect(plan.statusCode, plan.body).toBe(201);
    const u = await member(t, app, 'dave', undefined, 60, HW);
    await sqlBehindTheServer(t, `update users set plan_id = '${plan.json<{ id: string }>().id}' where id = '${u.id}'`);
    const first = await remembered(app, { username: 'dave', password: u.password });
    t.clock.advance(75 * 60_000);
    const res = await refresh(app, first.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ membership: { is_active: true, in_grace: true } });
    t.clock.advance(16 * 60_000);
    expectError(await refresh(app, res.json<Remembered>().refresh_token), 403, 'MEMBERSHIP_INACTIVE');
  });

  it('a password change ends the refresh tokens', async () => {
    const { first } = await alice();
    const changed = await call(t, app, 'POST', '/change_password', { username: 'alice', password: 'correct horse battery', new_password: 'another horse battery' });
    expect(changed.statusCode, changed.body).toBe(204);
    expectError(await refresh(app, first.refresh_token), 401, 'REFRESH_INVALID');
  });

  it('the machine dropped by the owner ends its refresh tokens', async () => {
    const { user, first } = await alice();
    const page = (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${user.id}`)).json<{ registered_devices: Array<{ id: string }> }>();
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${user.id}/devices/${page.registered_devices[0]!.id}`)).statusCode).toBe(204);
    expectError(await refresh(app, first.refresh_token), 401, 'REFRESH_INVALID');
  });

  it('10 parallel refreshes of one token: exactly one 200, the others REFRESH_REUSED', async () => {
    const { first } = await alice();
    const answers: LightMyRequestResponse[] = await Promise.all(Array.from({ length: 10 }, () => refresh(app, first.refresh_token)));
    const codes = answers.map((r) => (r.statusCode === 200 ? 'OK' : r.json<{ error_code: string }>().error_code)).sort();
    expect(codes).toEqual(['OK', ...Array<string>(9).fill('REFRESH_REUSED')]);
  });

  it('logout ends the remembered login: its refresh token is refused afterwards', async () => {
    const { first } = await alice();
    const second = await refreshed(app, first.refresh_token);
    expect((await call(t, app, 'POST', '/auth/logout', undefined, { headers: bearer(second.session_token) })).statusCode).toBe(204);
    expectError(await refresh(app, second.refresh_token), 401, 'REFRESH_INVALID');
  });

  it('401 TOKEN_AUTH_DISABLED where token authentication is off', async () => {
    const { first } = await alice();
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { token_auth: false, legacy_auth: true })).statusCode).toBe(200);
    expectError(await refresh(app, first.refresh_token), 401, 'TOKEN_AUTH_DISABLED');
  });
});
