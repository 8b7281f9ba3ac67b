import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, bans, bearer, call, expectError, login, member, signUp, token } from '../support/integration.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

describe('bans', () => {
  it('an IPv4 ban holds for the same client seen as an IPv4-mapped IPv6 address', async () => {
    const app = await createApplication(t, { device_auth: false });
    const u = await member(t, app, 'alice');
    await ban(t, app, 'ip', '10.90.0.1');
    expectError(await login(t, app, { username: 'alice', password: u.password }, {}, { ip: '::ffff:10.90.0.1' }), 403, 'BANNED');
  });

  it('banning a license cuts off the password user who redeemed it', async () => {
    const app = await createApplication(t, { device_auth: false, ban_propagation: false });
    const u = await member(t, app, 'bob');
    const tok = await token(t, app, { username: 'bob', password: u.password });
    await ban(t, app, 'license', u.code);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 403, 'BANNED');
    expectError(await login(t, app, { username: 'bob', password: u.password }), 403, 'BANNED');
  });

  it('a banned device signing in to another account gets that account banned (propagation after proof)', async () => {
    const app = await createApplication(t, { device_auth: true, default_allowed_devices: 2 });
    const evader = await member(t, app, 'carol', undefined, 60, { hardware_id: 'HW-1' });
    await ban(t, app, 'hardware_id', 'HW-BANNED');
    // The banned device comes with carol's valid credentials: her account is proven, so it is
    // banned too; her address is not (ban_propagation_to_addresses is off by default).
    expectError(await login(t, app, { username: 'carol', password: evader.password }, { hardware_id: 'HW-BANNED' }, { ip: '10.91.0.1' }), 403, 'BANNED');
    const all = await bans(t, app);
    expect(all).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'user', value: evader.id })]));
    expect(all.some((b: { type: string }) => b.type === 'ip')).toBe(false);
  });
});

describe('devices', () => {
  it('a refused activation takes no device slot', async () => {
    const app = await createApplication(t, { device_auth: true, default_allowed_devices: 2 });
    await signUp(t, app, 'dave', 'password123', { hardware_id: 'HW-1' });
    const [code] = await createLicenses(t, app.id, 1, 60);
    const first = await call(t, app, 'POST', '/activate_license', { code, username: 'dave', password: 'password123', hardware_id: 'HW-1' });
    expect(first.statusCode).toBe(200);
    const reused = await call(t, app, 'POST', '/activate_license', { code, username: 'dave', password: 'password123', hardware_id: 'HW-2' });
    expectError(reused, 401, 'LICENSE_USED');
    const detail = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${await userId(app.id, 'dave')}`);
    expect(detail.json().registered_devices.map((d: { hardware_id: string }) => d.hardware_id)).toEqual(['HW-1']);
  });

  async function userId(appId: string, username: string): Promise<string> {
    const res = await consoleRequest(t, 'GET', `/applications/${appId}/users?query=${username}`);
    return res.json<Array<{ id: string }>>()[0]!.id;
  }

  it('sessions opened before device auth was turned on must log in again with a hardware id', async () => {
    const app = await createApplication(t, { device_auth: false });
    const u = await member(t, app, 'erin');
    const tok = await token(t, app, { username: 'erin', password: u.password });
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { device_auth: true })).statusCode).toBe(200);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'SESSION_EXPIRED');
  });
});

describe('request shape', () => {
  it('logout takes no body', async () => {
    const app = await createApplication(t, { device_auth: false });
    const u = await member(t, app, 'frank');
    const tok = await token(t, app, { username: 'frank', password: u.password });
    expectError(await call(t, app, 'POST', '/auth/logout', { extra: 1 }, { headers: bearer(tok) }), 422, 'VALIDATION_FAILED');
    expect((await call(t, app, 'POST', '/auth/logout', {}, { headers: bearer(tok) })).statusCode).toBe(204);
  });

  it('a wrong admin key answers 401 before the path parameter is looked at', async () => {
    const res = await t.inject({ method: 'GET', url: `/api/admin/user/${'x'.repeat(300)}`, headers: { authorization: 'Bearer gh_adm_wrong' } });
    expectError(res, 401, 'INVALID_ADMIN_API_KEY');
  });

  it('a credentials object of neither shape is reported once, by name', async () => {
    const app = await createApplication(t, { device_auth: false });
    const res = await call(t, app, 'POST', '/auth/login', { credentials: { username: 'x' } });
    expect(expectError(res, 422, 'VALIDATION_FAILED')).toMatchObject({ errors: [{ field: 'credentials', message: 'does not match any accepted shape' }] });
  });

  it('over-long credential headers answer 422, not a lookup', async () => {
    const app = await createApplication(t, { device_auth: false, legacy_auth: true });
    const res = await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'u'.repeat(300), 'x-api-password': 'p' } });
    expectError(res, 422, 'VALIDATION_FAILED');
  });
});

describe('NUL characters', () => {
  it('are refused with 422 wherever a client string could reach a lookup', async () => {
    const app = await createApplication(t, { device_auth: false });
    const admin = { authorization: `Bearer ${app.credentials.admin_api_key}` };
    expectError(await t.inject({ method: 'GET', url: '/api/admin/user/%00', headers: admin }), 422, 'VALIDATION_FAILED');
    expectError(await login(t, app, { username: 'a\u0000b', password: 'whatever-pass' }), 422, 'VALIDATION_FAILED');
    const res = await consoleRequest(t, 'GET', `/applications/${app.id}/users?query=%00`);
    expect(expectError(res, 422, 'VALIDATION_FAILED')).toMatchObject({ errors: [{ field: 'query' }] });
  });
});
