// Device reset by the user (end-user-features.md, docs/api.md "POST /reset_devices"): full credentials, the
// per-application cooldown decided atomically, bans, timeouts and throttling as at login.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, bearer, call, expectError, login, member, token, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
const HW1 = { hardware_id: 'HW-1' };
const HW2 = { hardware_id: 'HW-2' };
const HOUR = 3_600_000;

beforeEach(async () => {
  // Races, not the password queue's bound, are what the parallel test looks at.
  t = await startTestApp({ passwordQueue: 1000, limits: { lockoutThreshold: 5, ipFailureLimit: 1000, accountFailureLimit: 1000 } });
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 1, default_allowed_sessions: 5, device_reset_cooldown_hours: 24 });
});
afterEach(() => t.close());

const reset = (on: TestApplication, body: unknown, headers: Record<string, string> = {}, ip?: string) => call(t, on, 'POST', '/reset_devices', body, { headers, ...(ip ? { ip } : {}) });
const userPage = async (on: TestApplication, id: string) => (await consoleRequest(t, 'GET', `/applications/${on.id}/users/${id}`)).json();

describe('POST /api/integration/reset_devices', () => {
  it('unregisters every device and ends every session: the user logs in from a new machine', async () => {
    const alice = await member(t, app, 'alice', undefined, 60, HW1);
    const session = await token(t, app, { username: 'alice', password: alice.password }, HW1);
    expectError(await login(t, app, { username: 'alice', password: alice.password }, HW2), 401, 'DEVICE_LIMIT_REACHED');

    const res = await reset(app, { username: 'alice', password: alice.password });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ next_reset_at: '2026-06-09T12:00:00.000Z' });
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: { ...bearer(session), 'x-hardware-id': 'HW-1' } }), 401, 'SESSION_EXPIRED');
    const page = await userPage(app, alice.id);
    expect(page.registered_devices).toEqual([]);
    expect(page).toMatchObject({ last_device_reset_at: '2026-06-08T12:00:00.000Z', next_device_reset_at: '2026-06-09T12:00:00.000Z' });
    expect((await login(t, app, { username: 'alice', password: alice.password }, HW2)).statusCode).toBe(200);
  });

  it('429 RESET_COOLDOWN with next_reset_at and Retry-After inside the cooldown; allowed again after it', async () => {
    const alice = await member(t, app, 'alice', undefined, null, HW1);
    expect((await reset(app, { username: 'alice', password: alice.password })).statusCode).toBe(200);
    t.clock.advance(HOUR);
    const refused = await reset(app, { username: 'alice', password: alice.password });
    const body = expectError(refused, 429, 'RESET_COOLDOWN') as unknown as { next_reset_at: string };
    expect(body.next_reset_at).toBe('2026-06-09T12:00:00.000Z');
    expect(refused.headers['retry-after']).toBe(String(23 * 3600));
    // The refusal changed nothing: the device registered since stays.
    expect((await login(t, app, { username: 'alice', password: alice.password }, HW2)).statusCode).toBe(200);
    expect((await userPage(app, alice.id)).registered_devices).toHaveLength(1);

    t.clock.set(Date.parse('2026-06-09T12:00:00.000Z') - 1);
    expect((await reset(app, { username: 'alice', password: alice.password })).headers['retry-after']).toBe('1');
    t.clock.advance(1);
    const again = await reset(app, { username: 'alice', password: alice.password });
    expect(again.statusCode).toBe(200);
    expect(again.json().next_reset_at).toBe('2026-06-10T12:00:00.000Z');
    // Once the cooldown has passed, the user page has no next reset to wait for.
    t.clock.advance(25 * HOUR);
    expect((await userPage(app, alice.id)).next_device_reset_at).toBeNull();
  });

  it('20 parallel resets succeed exactly once', async () => {
    const alice = await member(t, app, 'alice', undefined, 60, HW1);
    const results = await Promise.all(Array.from({ length: 20 }, () => reset(app, { username: 'alice', password: alice.password })));
    const byStatus = results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.statusCode]: (acc[r.statusCode] ?? 0) + 1 }), {});
    expect(byStatus).toEqual({ 200: 1, 429: 19 });
    expect(results.filter((r) => r.statusCode === 429).every((r) => r.json().error_code === 'RESET_COOLDOWN')).toBe(true);
  });

  it('a license-code user resets with {code}', async () => {
    const [code] = (await createLicenses(t, app.id, 1, 60)) as [string];
    const holder = (await call(t, app, 'POST', '/sign_up_with_license_code', { code, ...HW1 })).json<{ id: string }>();
    expect((await reset(app, { code: code.toLowerCase() })).statusCode).toBe(200);
    expect((await userPage(app, holder.id)).registered_devices).toEqual([]);
    expectError(await reset(app, { code }), 429, 'RESET_COOLDOWN');
  });

  it('403 RESET_DISABLED where the application leaves it off (the default), before any credential is checked', async () => {
    const off = await createApplication(t, { device_auth: true });
    expect((await consoleRequest(t, 'GET', `/applications/${off.id}`)).json().device_reset_cooldown_hours).toBeNull();
    const bob = await member(t, off, 'bob', undefined, 60, HW1);
    expectError(await reset(off, { username: 'bob', password: bob.password }), 403, 'RESET_DISABLED');
    expectError(await reset(off, { username: 'bob', password: 'wrong' }), 403, 'RESET_DISABLED');
    expect((await userPage(off, bob.id)).registered_devices).toHaveLength(1);
  });

  it('refuses wrong credentials (throttled as at login), bans and timeouts', async () => {
    const alice = await member(t, app, 'alice', undefined, 60, HW1);
    expectError(await reset(app, { username: 'alice', password: 'wrong password' }), 401, 'INVALID_CREDENTIALS');
    expectError(await reset(app, { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA' }), 401, 'LICENSE_INVALID');
    const attacker = '203.0.113.9';
    for (let i = 0; i < 5; i++) expectError(await reset(app, { username: 'alice', password: `guess ${i}` }, {}, attacker), 401, 'INVALID_CREDENTIALS');
    expectError(await reset(app, { username: 'alice', password: alice.password }, {}, attacker), 429, 'ACCOUNT_LOCKED');

    const bob = await member(t, app, 'bob', undefined, 60, HW1);
    await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${bob.id}/timeout`, { until: '2026-06-08T12:30:00.000Z' });
    expectError(await reset(app, { username: 'bob', password: bob.password }), 403, 'TIMED_OUT');
    const carol = await member(t, app, 'carol', undefined, 60, HW1);
    await ban(t, app, 'user', carol.id);
    expectError(await reset(app, { username: 'carol', password: carol.password }), 403, 'BANNED');
    for (const who of [alice, bob, carol]) expect((await userPage(app, who.id)).registered_devices).toHaveLength(1);
  });

  it('never on a session token alone', async () => {
    const alice = await member(t, app, 'alice', undefined, 60, HW1);
    const session = await token(t, app, { username: 'alice', password: alice.password }, HW1);
    for (const body of [{}, undefined, { session_token: session }, { username: 'alice' }, { code: 'x', username: 'alice', password: alice.password }]) {
      const res = await reset(app, body, bearer(session));
      expect(res.statusCode, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    }
    expect((await userPage(app, alice.id)).registered_devices).toHaveLength(1);
  });

  it('device_reset_cooldown_hours is null or 1 to 8760', async () => {
    for (const bad of [0, 8761, 1.5, -1]) {
      expectError(await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { device_reset_cooldown_hours: bad }), 422, 'VALIDATION_FAILED');
    }
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { device_reset_cooldown_hours: 8760 })).json().device_reset_cooldown_hours).toBe(8760);
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { device_reset_cooldown_hours: null })).json().device_reset_cooldown_hours).toBeNull();
  });
});
