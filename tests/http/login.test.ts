import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, bans, bearer, call, expectError, login, member, signUp, token, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 1, default_allowed_sessions: 1, ban_propagation_to_addresses: true });
});
afterEach(() => t.close());

const HW = { hardware_id: 'HW-1' };

describe('POST /auth/login', () => {
  it('returns a session token for an active member', async () => {
    const u = await member(t, app, 'alice', undefined, 60, HW);
    const res = await login(t, app, { username: 'alice', password: u.password }, HW);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      session_token: expect.any(String),
      expires_at: '2026-06-08T12:05:00.000Z',
      membership: { is_active: true, is_lifetime: false, active_until: '2026-06-08T13:00:00.000Z', plan: null, entitlements: [], in_grace: false, grace_ends_at: null },
    });
  });

  it('logs a license-code user in with {code}', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    await call(t, app, 'POST', '/sign_up_with_license_code', { code, ...HW });
    expect((await login(t, app, { code: code as string }, HW)).statusCode).toBe(200);
  });

  it('401 INVALID_CREDENTIALS: unknown user and wrong password give the same body', async () => {
    await member(t, app, 'alice', undefined, 60, HW);
    const wrong = await login(t, app, { username: 'alice', password: 'wrong password' }, HW);
    const unknown = await login(t, app, { username: 'nobody', password: 'wrong password' }, HW);
    expectError(wrong, 401, 'INVALID_CREDENTIALS');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.body).toBe(wrong.body);
  });

  it('401 LICENSE_INVALID for an unknown, malformed or never signed-up license code', async () => {
    const body = expectError(await login(t, app, { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA' }, HW), 401, 'LICENSE_INVALID');
    // A credential refusal names no form field.
    expect(body).not.toHaveProperty('errors');
    expectError(await login(t, app, { code: 'nonsense' }, HW), 401, 'LICENSE_INVALID');
    const [unused] = await createLicenses(t, app.id, 1, 60);
    expectError(await login(t, app, { code: unused as string }, HW), 401, 'LICENSE_INVALID');
  });

  it('401 LICENSE_USED for a code another account activated, at login and in the legacy header', async () => {
    const legacy = await createApplication(t, { device_auth: true, legacy_auth: true });
    await signUp(t, legacy, 'alice', 'password123', HW);
    const [code] = await createLicenses(t, legacy.id, 1, 60);
    expect((await call(t, legacy, 'POST', '/activate_license', { code, username: 'alice', password: 'password123', ...HW })).statusCode).toBe(200);
    expectError(await login(t, legacy, { code: code as string }, HW), 401, 'LICENSE_USED');
    expectError(await call(t, legacy, 'GET', '/app_context', undefined, { headers: { 'x-api-license-code': code as string, 'x-hardware-id': 'HW-1' } }), 401, 'LICENSE_USED');
    expectError(await call(t, legacy, 'GET', '/app_context', undefined, { headers: { 'x-api-license-code': 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', 'x-hardware-id': 'HW-1' } }), 401, 'LICENSE_INVALID');
  });

  it('401 DEVICE_REQUIRED without a hardware id when device auth is on', async () => {
    const u = await member(t, app, 'alice', undefined, 60, HW);
    expectError(await login(t, app, { username: 'alice', password: u.password }), 401, 'DEVICE_REQUIRED');
  });

  it('401 DEVICE_LIMIT_REACHED for a new device past the cap; the known device still logs in', async () => {
    const u = await member(t, app, 'alice', undefined, 60, HW);
    expectError(await login(t, app, { username: 'alice', password: u.password }, { hardware_id: 'HW-2' }), 401, 'DEVICE_LIMIT_REACHED');
    expect((await login(t, app, { username: 'alice', password: u.password }, HW)).statusCode).toBe(200);
  });

  it('401 SESSION_LIMIT_REACHED past the simultaneous-session cap; the same device replaces its session', async () => {
    const open = await createApplication(t, { device_auth: false, default_allowed_sessions: 1 });
    const u = await member(t, open, 'bob');
    const first = await token(t, open, { username: 'bob', password: u.password });
    expectError(await login(t, open, { username: 'bob', password: u.password }), 401, 'SESSION_LIMIT_REACHED');
    // Expired sessions no longer count.
    t.clock.advance(5 * 60_000 + 1);
    expect((await login(t, open, { username: 'bob', password: u.password })).statusCode).toBe(200);
    expect(first).toBeTruthy();

    const again = await token(t, app, { username: (await member(t, app, 'carol', undefined, 60, HW)).username, password: 'correct horse battery' }, HW);
    const replaced = await login(t, app, { username: 'carol', password: 'correct horse battery' }, HW);
    expect(replaced.statusCode).toBe(200);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(again) }), 401, 'SESSION_EXPIRED');
  });

  it('403 MEMBERSHIP_INACTIVE for a user without an active membership', async () => {
    await signUp(t, app, 'dave', 'password123', HW);
    expectError(await login(t, app, { username: 'dave', password: 'password123' }, HW), 403, 'MEMBERSHIP_INACTIVE');
  });

  it('403 MEMBERSHIP_INACTIVE once the membership has expired', async () => {
    const u = await member(t, app, 'erin', undefined, 60, HW);
    t.clock.advance(60 * 60_000);
    expectError(await login(t, app, { username: 'erin', password: u.password }, HW), 403, 'MEMBERSHIP_INACTIVE');
  });

  it('403 BANNED for a banned user, IP or hardware id', async () => {
    // Each actor comes from its own address: with propagation on, a refused request bans the
    // address it came from too.
    const u = await member(t, app, 'frank', undefined, 60, HW);
    await ban(t, app, 'user', u.id);
    expectError(await login(t, app, { username: 'frank', password: u.password }, HW, { ip: '10.20.0.1' }), 403, 'BANNED');
    const g = await member(t, app, 'grace', undefined, 60, { hardware_id: 'HW-G' });
    await ban(t, app, 'ip', '10.9.9.9');
    expectError(await login(t, app, { username: 'grace', password: g.password }, { hardware_id: 'HW-G' }, { ip: '10.9.9.9' }), 403, 'BANNED');
    await ban(t, app, 'hardware_id', 'HW-G');
    expectError(await login(t, app, { username: 'grace', password: g.password }, { hardware_id: 'HW-G' }, { ip: '10.20.0.2' }), 403, 'BANNED');
  });

  it('with ban propagation, a refused login bans the other identifiers it carried', async () => {
    const u = await member(t, app, 'oscar', undefined, 60, { hardware_id: 'HW-O' });
    await ban(t, app, 'user', u.id);
    expectError(await login(t, app, { username: 'oscar', password: u.password }, { hardware_id: 'HW-O' }, { ip: '10.21.0.1' }), 403, 'BANNED');
    const all = await bans(t, app);
    expect(all).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'ip', value: '10.21.0.1' }), expect.objectContaining({ type: 'hardware_id', value: 'HW-O' })]));
    // Without propagation only the banned identifier is refused.
    const quiet = await createApplication(t, { device_auth: false, ban_propagation: false });
    const q = await member(t, quiet, 'pia');
    await ban(t, quiet, 'user', q.id);
    expectError(await login(t, quiet, { username: 'pia', password: q.password }, {}, { ip: '10.21.0.2' }), 403, 'BANNED');
    expect(await bans(t, quiet)).toHaveLength(1);
  });

  it('from a banned address, a wrong password is just invalid credentials and bans nothing more', async () => {
    const u = await member(t, app, 'quinn', undefined, 60, { hardware_id: 'HW-Q' });
    await ban(t, app, 'ip', '10.22.0.1');
    const before = await bans(t, app);
    expectError(await login(t, app, { username: 'quinn', password: 'wrong password' }, { hardware_id: 'HW-Q2' }, { ip: '10.22.0.1' }), 401, 'INVALID_CREDENTIALS');
    expect(await bans(t, app)).toEqual(before);
    expect((await login(t, app, { username: 'quinn', password: u.password }, { hardware_id: 'HW-Q' }, { ip: '10.22.0.2' })).statusCode).toBe(200);
  });

  it('a proven user on a banned address is refused, but an address passes no ban on to the account or devices', async () => {
    const u = await member(t, app, 'rita', undefined, 60, { hardware_id: 'HW-R' });
    await ban(t, app, 'ip', '10.24.0.1');
    expectError(await login(t, app, { username: 'rita', password: u.password }, { hardware_id: 'HW-R' }, { ip: '10.24.0.1' }), 403, 'BANNED');
    expect((await bans(t, app)).map((b) => b.value)).toEqual(['10.24.0.1']);
    expect((await login(t, app, { username: 'rita', password: u.password }, { hardware_id: 'HW-R' }, { ip: '10.24.0.2' })).statusCode).toBe(200);
  });

  it('a banned user coming with a device id it merely claimed gets the address banned, not that device', async () => {
    const u = await member(t, app, 'ruth', undefined, 60, { hardware_id: 'HW-RU' });
    await ban(t, app, 'user', u.id);
    // HW-STRANGER is not ruth's: with the device cap reached it is not registered either.
    expectError(await login(t, app, { username: 'ruth', password: u.password }, { hardware_id: 'HW-STRANGER' }, { ip: '10.24.0.3' }), 403, 'BANNED');
    const all = await bans(t, app);
    expect(all).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'ip', value: '10.24.0.3' })]));
    expect(all.some((b) => b.value === 'HW-STRANGER')).toBe(false);
  });

  it('403 TIMED_OUT with timed_out_until and reason while a timeout runs, then logs in after it', async () => {
    const u = await member(t, app, 'heidi', undefined, 600, HW);
    const res = await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${u.id}/timeout`, { until: '2026-06-08T12:30:00.000Z', reason: 'spam' });
    expect(res.statusCode).toBe(200);
    const body = expectError(await login(t, app, { username: 'heidi', password: u.password }, HW), 403, 'TIMED_OUT');
    expect(body).toMatchObject({ timed_out_until: '2026-06-08T12:30:00.000Z', reason: 'spam' });
    t.clock.set(Date.parse('2026-06-08T12:30:00.000Z'));
    expect((await login(t, app, { username: 'heidi', password: u.password }, HW)).statusCode).toBe(200);
  });

  it('401 TOKEN_AUTH_DISABLED when the application turned token auth off', async () => {
    const legacyOnly = await createApplication(t, { device_auth: false, token_auth: false, legacy_auth: true });
    const u = await member(t, legacyOnly, 'ivan');
    expectError(await login(t, legacyOnly, { username: 'ivan', password: u.password }), 401, 'TOKEN_AUTH_DISABLED');
  });

  it('422 VALIDATION_FAILED for malformed credentials', async () => {
    expectError(await call(t, app, 'POST', '/auth/login', { credentials: { username: 'x' }, ...HW }), 422, 'VALIDATION_FAILED');
    expectError(await call(t, app, 'POST', '/auth/login', { credentials: { username: 'x', password: 12345678 }, ...HW }), 422, 'VALIDATION_FAILED');
  });
});

describe('sessions', () => {
  it('a token expires after session_ttl_seconds with 401 SESSION_EXPIRED', async () => {
    const u = await member(t, app, 'judy', undefined, 600, HW);
    const tok = await token(t, app, { username: 'judy', password: u.password }, HW);
    expect((await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) })).statusCode).toBe(200);
    t.clock.advance(300_000);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'SESSION_EXPIRED');
  });

  it('logout ends the session', async () => {
    const u = await member(t, app, 'ken', undefined, 600, HW);
    const tok = await token(t, app, { username: 'ken', password: u.password }, HW);
    expect((await call(t, app, 'POST', '/auth/logout', undefined, { headers: bearer(tok) })).statusCode).toBe(204);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'SESSION_EXPIRED');
  });

  it('a token cannot be used with another application', async () => {
    const u = await member(t, app, 'leo', undefined, 600, HW);
    const tok = await token(t, app, { username: 'leo', password: u.password }, HW);
    const other = await createApplication(t, { device_auth: false });
    expectError(await call(t, other, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'INVALID_CREDENTIALS');
  });

  it('a forged or garbled token is refused', async () => {
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer('not-a-token') }), 401, 'INVALID_CREDENTIALS');
    const u = await member(t, app, 'mia', undefined, 600, HW);
    const tok = await token(t, app, { username: 'mia', password: u.password }, HW);
    const [h, p] = tok.split('.');
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(`${h}.${p}.AAAA`) }), 401, 'INVALID_CREDENTIALS');
  });

  it('a ban or timeout bites on the next request, not at token expiry; owners revoke sessions', async () => {
    const quiet = await createApplication(t, { device_auth: false, ban_propagation: false, session_ttl_seconds: 3600 });
    const u = await member(t, quiet, 'nina', undefined, 600);
    let tok = await token(t, quiet, { username: 'nina', password: u.password });
    expect((await call(t, quiet, 'GET', '/app_context', undefined, { headers: bearer(tok), ip: '10.4.4.4' })).statusCode).toBe(200);
    await ban(t, quiet, 'ip', '10.4.4.4');
    expectError(await call(t, quiet, 'GET', '/app_context', undefined, { headers: bearer(tok), ip: '10.4.4.4' }), 403, 'BANNED');
    expect((await call(t, quiet, 'GET', '/app_context', undefined, { headers: bearer(tok) })).statusCode).toBe(200);
    expect((await consoleRequest(t, 'DELETE', `/applications/${quiet.id}/users/${u.id}/sessions`)).statusCode).toBe(204);
    expectError(await call(t, quiet, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'SESSION_EXPIRED');
    tok = await token(t, quiet, { username: 'nina', password: u.password });
    await consoleRequest(t, 'PUT', `/applications/${quiet.id}/users/${u.id}/timeout`, { until: '2026-06-08T13:00:00.000Z' });
    // Setting a timeout revokes the user's sessions.
    expectError(await call(t, quiet, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'SESSION_EXPIRED');
  });

  it('with propagation, a live session of a banned user gets the address it is used from banned', async () => {
    const u = await member(t, app, 'olga', undefined, 600, HW);
    const tok = await token(t, app, { username: 'olga', password: u.password }, HW);
    // A ban of the address the session is used from refuses it and bans nothing more.
    await ban(t, app, 'ip', '10.23.0.1');
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok), ip: '10.23.0.1' }), 403, 'BANNED');
    expect(await bans(t, app)).toHaveLength(1);
    // A ban of the device does propagate, to the address and the user the token proves.
    await ban(t, app, 'hardware_id', HW.hardware_id);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok), ip: '10.23.0.2' }), 403, 'BANNED');
    expect(await bans(t, app)).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'user', value: u.id }), expect.objectContaining({ type: 'ip', value: '10.23.0.2' })]));
  });
});
