// Heartbeats and leases (docs/machines.md, "Heartbeats and leases"; issue 43): a session that stops
// heartbeating dies after two intervals and frees its seat; heartbeats keep it; dead, logged-out
// and foreign sessions are refused. On both backends; time moves by the injected clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, expectError, login, member, token, type TestApplication } from '../support/integration.js';

const INTERVAL_S = 30;
const LEASE_MS = 2 * INTERVAL_S * 1000;

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  // Room for two machines, one seat: only the session cap stands between them.
  app = await createApplication(t, { heartbeat_seconds: INTERVAL_S, session_ttl_seconds: 3600, default_allowed_devices: 2, default_allowed_sessions: 1 });
});
afterEach(() => t.close());

const beat = (tok: string, body?: unknown, target = app) => call(t, target, 'POST', '/heartbeat', body, { headers: bearer(tok) });
const context = (tok: string) => call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) });
const iso = (ms: number) => new Date(ms).toISOString();

describe('a session of an application that requires heartbeats', () => {
  it('without heartbeats stops counting after two intervals: a new machine gets in under a cap of one, and the old token answers 401 SESSION_EXPIRED', async () => {
    const u = await member(t, app, 'crasher', undefined, 600, { hardware_id: 'PC-1' });
    const first = await token(t, app, { username: 'crasher', password: u.password }, { hardware_id: 'PC-1' });
    // Read once, so that the access read is remembered (fast/): the clock alone must end it.
    expect((await context(first)).statusCode).toBe(200);
    t.clock.advance(LEASE_MS - 1);
    expect((await context(first)).statusCode).toBe(200);
    expectError(await login(t, app, { username: 'crasher', password: u.password }, { hardware_id: 'PC-2' }), 401, 'SESSION_LIMIT_REACHED');

    t.clock.advance(1);
    const second = await login(t, app, { username: 'crasher', password: u.password }, { hardware_id: 'PC-2' });
    expect(second.statusCode, second.body).toBe(200);
    expectError(await context(first), 401, 'SESSION_EXPIRED');
    expectError(await beat(first), 401, 'SESSION_EXPIRED');
  });

  it('is kept alive by heartbeats well past two intervals, and holds its seat meanwhile', async () => {
    const u = await member(t, app, 'beater', undefined, 600, { hardware_id: 'PC-1' });
    const tok = await token(t, app, { username: 'beater', password: u.password }, { hardware_id: 'PC-1' });
    expect((await context(tok)).statusCode).toBe(200);
    for (let i = 0; i < 6; i++) {
      t.clock.advance(LEASE_MS - 10_000);
      const res = await beat(tok, { hardware_id: 'PC-1' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ lease_expires_at: iso(t.clock.now() + LEASE_MS), server_time: iso(t.clock.now()) });
    }
    // Past the lease the remembered access read was made with, within the new one: still alive.
    t.clock.advance(LEASE_MS - 1);
    expect((await context(tok)).statusCode).toBe(200);
    expectError(await login(t, app, { username: 'beater', password: u.password }, { hardware_id: 'PC-2' }), 401, 'SESSION_LIMIT_REACHED');
    t.clock.advance(1);
    expectError(await context(tok), 401, 'SESSION_EXPIRED');
  });

  it('takes no body, or hardware_id and device, and refuses another machine’s hardware id', async () => {
    const u = await member(t, app, 'shapes', undefined, 600, { hardware_id: 'PC-1' });
    const tok = await token(t, app, { username: 'shapes', password: u.password }, { hardware_id: 'PC-1' });
    const bare = await t.inject({ method: 'POST', url: '/api/integration/heartbeat', headers: { ...app.headers, ...bearer(tok) } });
    expect(bare.statusCode, bare.body).toBe(200);
    expect((await beat(tok, {})).statusCode).toBe(200);
    expect((await beat(tok, { hardware_id: 'PC-1', device: { name: 'Laptop', platform: 'linux', app_version: '1.2.3' } })).statusCode).toBe(200);
    expectError(await beat(tok, { hardware_id: 'PC-2' }), 401, 'INVALID_CREDENTIALS');
    expectError(await beat(tok, { device: { name: 'bad\u0007name' } }), 422, 'VALIDATION_FAILED');
  });

  it('is a sighting of its machine: what the device says is kept, and last_seen_at moves at most once a minute', async () => {
    const u = await member(t, app, 'seen', undefined, 600, { hardware_id: 'PC-1' });
    const tok = await token(t, app, { username: 'seen', password: u.password }, { hardware_id: 'PC-1' });
    const loggedInAt = t.clock.now();
    const mine = async () => (await call(t, app, 'GET', '/devices', undefined, { headers: bearer(tok) })).json<Array<Record<string, unknown>>>();
    expect((await beat(tok, { device: { name: ' Laptop ', platform: 'linux' } })).statusCode).toBe(200);
    expect(await mine()).toMatchObject([{ name: 'Laptop', platform: 'linux', last_seen_at: iso(loggedInAt) }]);
    t.clock.advance(30_000);
    expect((await beat(tok)).statusCode).toBe(200);
    expect((await mine())[0]?.['last_seen_at']).toBe(iso(loggedInAt));
    t.clock.advance(30_000);
    expect((await beat(tok)).statusCode).toBe(200);
    expect((await mine())[0]?.['last_seen_at']).toBe(iso(t.clock.now()));
  });

  it('from a logged-out session answers 401 SESSION_EXPIRED', async () => {
    const u = await member(t, app, 'leaver', undefined, 600, { hardware_id: 'PC-1' });
    const tok = await token(t, app, { username: 'leaver', password: u.password }, { hardware_id: 'PC-1' });
    expect((await beat(tok)).statusCode).toBe(200);
    expect((await call(t, app, 'POST', '/auth/logout', undefined, { headers: bearer(tok) })).statusCode).toBe(204);
    expectError(await beat(tok), 401, 'SESSION_EXPIRED');
  });

  it('a heartbeat racing a logout never revives the session', async () => {
    const u = await member(t, app, 'racer', undefined, 600, { hardware_id: 'PC-1' });
    for (let i = 0; i < 5; i++) {
      const tok = await token(t, app, { username: 'racer', password: u.password }, { hardware_id: 'PC-1' });
      const [beaten, out] = await Promise.all([beat(tok), call(t, app, 'POST', '/auth/logout', undefined, { headers: bearer(tok) })]);
      expect([200, 401]).toContain(beaten.statusCode);
      expect(out.statusCode).toBe(204);
      expectError(await context(tok), 401, 'SESSION_EXPIRED');
    }
  });

  it('with a token of another application answers 401 INVALID_CREDENTIALS, and without a token 401 LOGIN_REQUIRED', async () => {
    const other = await createApplication(t, { heartbeat_seconds: INTERVAL_S });
    const u = await member(t, other, 'stranger', undefined, 600, { hardware_id: 'PC-1' });
    const foreign = await token(t, other, { username: 'stranger', password: u.password }, { hardware_id: 'PC-1' });
    expect((await beat(foreign, undefined, other)).statusCode).toBe(200);
    expectError(await beat(foreign), 401, 'INVALID_CREDENTIALS');
    expectError(await call(t, app, 'POST', '/heartbeat', {}), 401, 'LOGIN_REQUIRED');
    // Legacy headers hold seats of their own: a heartbeat needs a session token.
    expectError(await call(t, app, 'POST', '/heartbeat', {}, { headers: { 'x-api-username': 'stranger', 'x-api-password': u.password } }), 401, 'LOGIN_REQUIRED');
  });

  it('re-checks the user as every token request does: a membership that ended answers 403 MEMBERSHIP_INACTIVE', async () => {
    const u = await member(t, app, 'lapsing', undefined, 1, { hardware_id: 'PC-1' });
    const tok = await token(t, app, { username: 'lapsing', password: u.password }, { hardware_id: 'PC-1' });
    t.clock.advance(50_000);
    expect((await beat(tok)).statusCode).toBe(200);
    t.clock.advance(50_000);
    expectError(await beat(tok), 403, 'MEMBERSHIP_INACTIVE');
  });
});

describe('counting sessions', () => {
  it("the owner's end of a user's sessions counts the live one, not the lapsed one", async () => {
    const u = await member(t, app, 'counted', undefined, 600, { hardware_id: 'PC-1' });
    await token(t, app, { username: 'counted', password: u.password }, { hardware_id: 'PC-1' });
    t.clock.advance(LEASE_MS);
    await token(t, app, { username: 'counted', password: u.password }, { hardware_id: 'PC-2' });
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${u.id}/sessions`)).statusCode).toBe(204);
    const revoked = (await t.store.listEvents(app.id, {}, { limit: 100 })).filter((e) => e.action === 'session.revoked');
    expect(revoked.map((e) => e.data)).toEqual([expect.objectContaining({ reason: 'owner', revoked: 1 })]);
  });
});

describe('heartbeats off', () => {
  it('a session gets no lease; its heartbeat answers its expiry; turning heartbeats on later gives it none', async () => {
    const plain = await createApplication(t, { session_ttl_seconds: 300 });
    const u = await member(t, plain, 'plain', undefined, 600, { hardware_id: 'PC-1' });
    const tok = await token(t, plain, { username: 'plain', password: u.password }, { hardware_id: 'PC-1' });
    const expiresAt = t.clock.now() + 300_000;
    const res = await beat(tok, undefined, plain);
    expect(res.json()).toEqual({ lease_expires_at: iso(expiresAt), server_time: iso(t.clock.now()) });
    expect((await consoleRequest(t, 'PATCH', `/applications/${plain.id}`, { heartbeat_seconds: INTERVAL_S })).statusCode).toBe(200);
    t.clock.advance(LEASE_MS + 1);
    expect((await call(t, plain, 'GET', '/app_context', undefined, { headers: bearer(tok) })).statusCode).toBe(200);
    expect((await beat(tok, undefined, plain)).json()).toEqual({ lease_expires_at: iso(expiresAt), server_time: iso(t.clock.now()) });
    // A login from now on takes a lease.
    const next = await token(t, plain, { username: 'plain', password: u.password }, { hardware_id: 'PC-1' });
    expect((await beat(next, undefined, plain)).json()).toEqual({ lease_expires_at: iso(t.clock.now() + LEASE_MS), server_time: iso(t.clock.now()) });
  });
});
