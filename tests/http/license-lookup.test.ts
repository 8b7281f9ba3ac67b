// GET /api/admin/license/{code} (end-user-features.md, docs/api.md "GET /license/{code}").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError, member } from '../support/integration.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false });
});
afterEach(() => t.close());

const lookup = (key: string, code: string) => t.inject({ method: 'GET', url: `/api/admin/license/${encodeURIComponent(code)}`, headers: { authorization: `Bearer ${key}` } });

describe('GET /api/admin/license/{code}', () => {
  it('an unused license, looked up in any case', async () => {
    const [code] = (await createLicenses(t, app.id, 1, 90)) as [string];
    const listed = (await consoleRequest(t, 'GET', `/applications/${app.id}/licenses`)).json()[0];
    for (const spelling of [code, code.toLowerCase(), ` ${code.toLowerCase().replaceAll('-', '')} `.trim()]) {
      const res = await lookup(app.credentials.admin_api_key, spelling);
      expect(res.statusCode, spelling).toBe(200);
      expect(res.json()).toEqual({
        application_id: app.id,
        id: listed.id,
        code,
        minutes: 90,
        note: null,
        created_at: '2026-06-08T12:00:00.000Z',
        used_at: null,
        used_by_user_id: null,
        banned: false,
        plan_id: null,
        seats: 1,
        redemptions: 0,
        is_credentials_license: false,
      });
    }
  });

  it("a license-code user's login is a credentials license; one a password user activated is not", async () => {
    const [loginCode] = (await createLicenses(t, app.id, 1, null)) as [string];
    t.clock.advance(60_000);
    const signedUp = await call(t, app, 'POST', '/sign_up_with_license_code', { code: loginCode });
    const holder = signedUp.json<{ id: string }>();
    const credentials = (await lookup(app.credentials.admin_api_key, loginCode.toLowerCase())).json();
    expect(credentials).toMatchObject({ code: loginCode, minutes: null, used_at: '2026-06-08T12:01:00.000Z', used_by_user_id: holder.id, is_credentials_license: true });

    const alice = await member(t, app, 'alice');
    const activated = (await lookup(app.credentials.admin_api_key, alice.code)).json();
    expect(activated).toMatchObject({ code: alice.code, used_by_user_id: alice.id, is_credentials_license: false });
  });

  it('a banned license says so', async () => {
    const [code] = (await createLicenses(t, app.id, 1, 60)) as [string];
    const ban = await consoleRequest(t, 'POST', `/applications/${app.id}/bans`, { type: 'license', value: code });
    expect(ban.statusCode).toBe(201);
    expect((await lookup(app.credentials.admin_api_key, code)).json().banned).toBe(true);
  });

  it("404 LICENSE_NOT_FOUND for an unknown or malformed code, and for another application's code", async () => {
    const other = await createApplication(t, { device_auth: false });
    const [theirs] = (await createLicenses(t, other.id, 1, 60)) as [string];
    for (const code of [theirs, theirs.toLowerCase(), 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', 'nonsense', 'not a code at all']) {
      expectError(await lookup(app.credentials.admin_api_key, code), 404, 'LICENSE_NOT_FOUND');
    }
    // Their own admin key finds it.
    expect((await lookup(other.credentials.admin_api_key, theirs)).statusCode).toBe(200);
  });

  it('401 INVALID_ADMIN_API_KEY with a wrong key or an API secret, whatever the code', async () => {
    const [code] = (await createLicenses(t, app.id, 1, 60)) as [string];
    expectError(await lookup('gh_adm_wrong', code), 401, 'INVALID_ADMIN_API_KEY');
    expectError(await lookup(app.credentials.api_secret, code), 401, 'INVALID_ADMIN_API_KEY');
    const none = await t.inject({ method: 'GET', url: `/api/admin/license/${code}` });
    expectError(none, 401, 'INVALID_ADMIN_API_KEY');
  });

  it('422 for a path parameter longer than any code', async () => {
    expectError(await lookup(app.credentials.admin_api_key, 'A'.repeat(101)), 422, 'VALIDATION_FAILED');
  });
});
