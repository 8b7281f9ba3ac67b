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
    const machine = (n: number) =>
      call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'sixpack', 'x-api-password': u.password, 'x-hardware-id': `PC-${n}` } });

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
});
