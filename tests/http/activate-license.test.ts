import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, call, expectError, signUp, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false });
  await signUp(t, app, 'alice', 'password123');
});
afterEach(() => t.close());

const activate = (body: Record<string, unknown>, ip?: string) => call(t, app, 'POST', '/activate_license', body, ip ? { ip } : {});

describe('POST /activate_license', () => {
  it('returns the adjustment and adds the minutes to the membership', async () => {
    const [code] = await createLicenses(t, app.id, 1, 120);
    const res = await activate({ code, username: 'alice', password: 'password123' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: expect.any(String),
      type: 'license',
      occurred_at: '2026-06-08T12:00:00.000Z',
      minutes: 120,
      grants_lifetime_access: false,
      revokes_lifetime_access: false,
      license_id: expect.any(String),
      reason: null,
      plan_from: null,
      plan_to: null,
      membership: { is_active: true, is_lifetime: false, active_until: '2026-06-08T14:00:00.000Z', plan: null, entitlements: [], in_grace: false, grace_ends_at: null },
    });
    // Time stacks on the remaining time, never on an expired past.
    const [second] = await createLicenses(t, app.id, 1, 60);
    t.clock.advance(30 * 60_000);
    await activate({ code: second, username: 'alice', password: 'password123' });
    const user = await t.inject({ method: 'GET', url: '/api/admin/user/alice', headers: { authorization: `Bearer ${await adminKey()}` } });
    expect(user.json().membership.active_until).toBe('2026-06-08T15:00:00.000Z');
  });

  async function adminKey() {
    const res = await t.inject({ method: 'POST', url: `/api/console/applications/${app.id}/credentials/admin_api_key/rotate`, headers: { authorization: `Bearer ${t.ownerToken}` } });
    return res.json().admin_api_key as string;
  }

  it('a lifetime license grants lifetime access with minutes null', async () => {
    const [code] = await createLicenses(t, app.id, 1, null);
    const res = await activate({ code, username: 'alice', password: 'password123' });
    expect(res.json()).toMatchObject({ minutes: null, grants_lifetime_access: true });
  });

  it('401 for a wrong password, an unknown user, an invalid license code and a used one', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    expectError(await activate({ code, username: 'alice', password: 'wrong-password' }), 401, 'INVALID_CREDENTIALS');
    expectError(await activate({ code, username: 'nobody', password: 'password123' }), 401, 'INVALID_CREDENTIALS');
    expectError(await activate({ code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', username: 'alice', password: 'password123' }), 401, 'LICENSE_INVALID');
    expect((await activate({ code, username: 'alice', password: 'password123' })).statusCode).toBe(200);
    expectError(await activate({ code, username: 'alice', password: 'password123' }), 401, 'LICENSE_USED');
  });

  it('license-code users cannot activate (no password)', async () => {
    const [first, second] = await createLicenses(t, app.id, 2, 60);
    const lc = (await call(t, app, 'POST', '/sign_up_with_license_code', { code: first })).json();
    expectError(await activate({ code: second, username: lc.username, password: 'anything-at-all' }), 401, 'INVALID_CREDENTIALS');
  });

  it('403 BANNED for a banned user, IP or license', async () => {
    // One actor per address: with propagation on, each refusal also bans the address it came from.
    const [a, b, c] = await createLicenses(t, app.id, 3, 60);
    await ban(t, app, 'license', a as string);
    expectError(await activate({ code: a, username: 'alice', password: 'password123' }, '10.30.0.1'), 403, 'BANNED');
    await signUp(t, app, 'bob', 'password123', {}, { ip: '10.30.0.2' });
    await ban(t, app, 'ip', '10.6.6.6');
    expectError(await activate({ code: b, username: 'bob', password: 'password123' }, '10.6.6.6'), 403, 'BANNED');
    const carol = await signUp(t, app, 'carol', 'password123', {}, { ip: '10.30.0.3' });
    await ban(t, app, 'user', carol.id);
    expectError(await activate({ code: c, username: 'carol', password: 'password123' }, '10.30.0.4'), 403, 'BANNED');
  });

  it('422 VALIDATION_FAILED for missing fields', async () => {
    expectError(await activate({ username: 'alice', password: 'password123' }), 422, 'VALIDATION_FAILED');
    expectError(await activate({ code: 'x', username: 'alice' }), 422, 'VALIDATION_FAILED');
  });
});
