// Legacy header authentication and the simultaneous-session cap (the security review's
// six-machine case): each (user, hardware id) in use holds an internal session until 10 s after
// its last request, counted like a token session (docs/choices.md, "Devices and sessions").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError, login, member, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  // Room for six devices, one seat: only the session cap stands between them.
  app = await createApplication(t, { legacy_auth: true, device_auth: true, default_allowed_devices: 6, default_allowed_sessions: 1 });
});
afterEach(() => t.close());

describe('legacy header authentication holds a seat per machine', () => {
  it('six machines on a one-seat license: one is served, the others answer 401 SESSION_LIMIT_REACHED until it has been quiet for 10 s', async () => {
    const u = await member(t, app, 'sixpack', undefined, 600, { hardware_id: 'PC-1' });
    const machine = (n: number) => call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'sixpack', 'x-api-password': u.password, 'x-hardware-id': `PC-${n}` } });

    expect((await machine(1)).statusCode).toBe(200);
    for (let n = 2; n <= 6; n++) expectError(await machine(n), 401, 'SESSION_LIMIT_REACHED');
    // The machine in use keeps its seat request after request.
    t.clock.advance(9_000);
    expect((await machine(1)).statusCode).toBe(200);
    t.clock.advance(9_999);
    expectError(await machine(2), 401, 'SESSION_LIMIT_REACHED');
    // A token login needs a seat too.
    expectError(await login(t, app, { username: 'sixpack', password: u.password }, { hardware_id: 'PC-3' }), 401, 'SESSION_LIMIT_REACHED');
    // 10 s after machine 1's last request its seat is free, and another machine takes it.
    t.clock.advance(1);
    expect((await machine(2)).statusCode).toBe(200);
    expectError(await machine(1), 401, 'SESSION_LIMIT_REACHED');
  });

  it('a token session holds the seat against legacy requests from another machine', async () => {
    const u = await member(t, app, 'mixer', undefined, 600, { hardware_id: 'PC-1' });
    expect((await login(t, app, { username: 'mixer', password: u.password }, { hardware_id: 'PC-1' })).statusCode).toBe(200);
    const res = await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'mixer', 'x-api-password': u.password, 'x-hardware-id': 'PC-2' } });
    expectError(res, 401, 'SESSION_LIMIT_REACHED');
  });

  it('five machines presenting one hardware id from five addresses on a one-session license: one is served (issue 39, item 16)', async () => {
    const u = await member(t, app, 'cloner', undefined, 600, { hardware_id: 'PC-1' });
    const from = (n: number) =>
      call(t, app, 'GET', '/app_context', undefined, { ip: `203.0.113.${n}`, headers: { 'x-api-username': 'cloner', 'x-api-password': u.password, 'x-hardware-id': 'PC-1' } });
    expect((await from(1)).statusCode).toBe(200);
    for (let n = 2; n <= 5; n++) expectError(await from(n), 401, 'SESSION_LIMIT_REACHED');
    // The clones neither share nor take over the first machine's seat, which is held on.
    expect((await from(1)).statusCode).toBe(200);
    t.clock.advance(10_000);
    expect((await from(3)).statusCode).toBe(200);
    expectError(await from(1), 401, 'SESSION_LIMIT_REACHED');
  });
});

describe('legacy header authentication where the session cap cannot hold', () => {
  it('device auth off: 401 LEGACY_AUTH_NEEDS_DEVICE_AUTH before any credential is checked, with or without a hardware id', async () => {
    const open = await createApplication(t, { legacy_auth: true, device_auth: false, default_allowed_sessions: 1 });
    const u = await member(t, open, 'nomad', undefined, 600);
    for (let n = 1; n <= 5; n++) {
      const headers: Record<string, string> = { 'x-api-username': 'nomad', 'x-api-password': u.password, ...(n % 2 === 0 ? { 'x-hardware-id': 'PC-1' } : {}) };
      expectError(await call(t, open, 'GET', '/app_context', undefined, { ip: `203.0.113.${n}`, headers }), 401, 'LEGACY_AUTH_NEEDS_DEVICE_AUTH');
    }
    // A wrong password answers the same: the method is refused, not the credentials, and nothing is counted against them.
    expectError(await call(t, open, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'nomad', 'x-api-password': 'wrong-password' } }), 401, 'LEGACY_AUTH_NEEDS_DEVICE_AUTH');
    // Session tokens still work there: a login holds its seat.
    expect((await login(t, open, { username: 'nomad', password: u.password })).statusCode).toBe(200);
  });
});
