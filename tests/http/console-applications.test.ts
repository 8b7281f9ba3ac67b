import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, consoleRequest, createApplication, startTestApp } from '../support/test-app.js';
import { ISO, MISSING_ID, UUID, bearerOf, otherOwnerToken } from './console-helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

describe('console authentication', () => {
  it('logs in with email and password and answers a token that works', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/console/login',
      payload: { email: 'Owner@Example.com', password: 'owner-password-1' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['owner', 'token']);
    expect(body.owner).toEqual({ id: expect.stringMatching(UUID), email: 'owner@example.com' });
    expect(body.token).toMatch(/^gh_con_/);
    const list = await t.inject({ method: 'GET', url: '/api/console/applications', headers: bearerOf(body.token) });
    expect(list.statusCode).toBe(200);
  });

  it('refuses a wrong password and an unknown email with the same 401', async () => {
    const wrong = await t.inject({ method: 'POST', url: '/api/console/login', payload: { email: 'owner@example.com', password: 'nope-nope-1' } });
    const unknown = await t.inject({ method: 'POST', url: '/api/console/login', payload: { email: 'who@example.com', password: 'nope-nope-1' } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json().error_code).toBe('INVALID_CREDENTIALS');
  });

  it('answers 422 naming the field for a malformed login body', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/console/login', payload: { email: 'owner@example.com' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('password');
  });

  it('answers 401 without a token, with a bad token and with a malformed header', async () => {
    for (const headers of [{}, bearerOf('gh_con_not-a-real-token'), { authorization: 'Basic abc' }]) {
      const res = await t.inject({ method: 'GET', url: '/api/console/applications', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error_code: 'INVALID_CONSOLE_TOKEN' });
    }
  });

  it('authenticates before validating: no body is judged for an anonymous caller', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/console/applications', payload: { bogus: true } });
    expect(res.statusCode).toBe(401);
  });

  it('logout revokes the presented token at once', async () => {
    const login = await t.inject({ method: 'POST', url: '/api/console/login', payload: { email: 'owner@example.com', password: 'owner-password-1' } });
    const token = login.json().token as string;
    const out = await t.inject({ method: 'POST', url: '/api/console/logout', headers: bearerOf(token) });
    expect(out.statusCode).toBe(204);
    expect(out.body).toBe('');
    const after = await t.inject({ method: 'GET', url: '/api/console/applications', headers: bearerOf(token) });
    expect(after.statusCode).toBe(401);
    // Other tokens of the same owner keep working.
    expect((await consoleRequest(t, 'GET', '/applications')).statusCode).toBe(200);
  });

  it('logout without a token answers 401', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/console/logout' });
    expect(res.statusCode).toBe(401);
  });
});

describe('applications', () => {
  it('creates an application with default settings and shows its credentials once', async () => {
    const res = await consoleRequest(t, 'POST', '/applications', { name: '  My App  ' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.application).toEqual({
      id: expect.stringMatching(UUID),
      name: 'My App',
      anonymous_access: false,
      device_auth: true,
      legacy_auth: false,
      token_auth: true,
      session_ttl_seconds: 300,
      default_allowed_devices: 1,
      default_allowed_sessions: 1,
      ban_propagation: true,
      ban_propagation_to_addresses: false,
      propagated_ip_ban_hours: 24,
      password_min_length: 8,
      response_signing: true,
      request_signing: false,
      signature_window_seconds: 10,
      license_file_ttl_minutes: 20_160,
      max_user_variables: 100,
      device_reset_cooldown_hours: null,
      sign_ups_per_hour: null,
      expiry_notice_days: 7,
      trial_plan_id: null,
      heartbeat_seconds: null,
      refresh_ttl_days: 30,
      response_signing_public_key: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
      response_signing_key_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      response_signing_previous_key_id: null,
      api_key: body.credentials.api_key,
      created_at: expect.stringMatching(ISO),
    });
    expect(body.credentials.api_key).toMatch(/^gh_pk_/);
    expect(body.credentials.api_secret).toMatch(/^gh_sk_/);
    expect(body.credentials.admin_api_key).toMatch(/^gh_adm_/);
    expect(Buffer.from(body.credentials.files_encryption_key, 'base64')).toHaveLength(32);
    expect(Buffer.from(body.credentials.request_signing_key, 'base64')).toHaveLength(32);

    const stored = await t.store.findApplication(body.application.id);
    expect(stored?.apiSecretDigest).not.toContain(body.credentials.api_secret);
    expect(stored?.filesKeySealed).not.toContain(body.credentials.files_encryption_key);
    expect(t.deps.secrets.open(stored!.filesKeySealed)).toBe(body.credentials.files_encryption_key);

    const get = await consoleRequest(t, 'GET', `/applications/${body.application.id}`);
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual(body.application);
    expect(JSON.stringify(get.json())).not.toContain(body.credentials.api_secret);
  });

  it('takes settings at creation', async () => {
    const res = await consoleRequest(t, 'POST', '/applications', {
      name: 'Configured',
      anonymous_access: true,
      device_auth: false,
      legacy_auth: true,
      token_auth: false,
      session_ttl_seconds: 3600,
      default_allowed_devices: 3,
      default_allowed_sessions: 2,
      ban_propagation: false,
      ban_propagation_to_addresses: true,
      password_min_length: 12,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().application).toMatchObject({
      ban_propagation_to_addresses: true,
      anonymous_access: true,
      device_auth: false,
      legacy_auth: true,
      token_auth: false,
      session_ttl_seconds: 3600,
      default_allowed_devices: 3,
      default_allowed_sessions: 2,
      ban_propagation: false,
      password_min_length: 12,
    });
  });

  it.each([
    ['session_ttl_seconds', { name: 'x', session_ttl_seconds: 1 }],
    ['default_allowed_sessions', { name: 'x', default_allowed_sessions: 0 }],
    ['password_min_length', { name: 'x', password_min_length: 4 }],
    ['signature_window_seconds', { name: 'x', signature_window_seconds: 301 }],
    ['license_file_ttl_minutes', { name: 'x', license_file_ttl_minutes: 59 }],
    ['response_signing', { name: 'x', response_signing: 1 }],
    ['device_auth', { name: 'x', device_auth: 'yes' }],
    ['colour', { name: 'x', colour: 'red' }],
    ['name', { name: '   ' }],
    ['name', {}],
    ['name', { name: 'x'.repeat(201) }],
  ])('refuses bad input with 422 naming %s', async (field, payload) => {
    const res = await consoleRequest(t, 'POST', '/applications', payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error_code: 'VALIDATION_FAILED' });
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('lists only the owner’s applications, oldest first', async () => {
    const a = await createApplication(t, { name: 'A' });
    t.clock.advance(1000);
    const b = await createApplication(t, { name: 'B' });
    await createApplication(t, { name: 'Theirs' }, await otherOwnerToken(t));
    const res = await consoleRequest(t, 'GET', '/applications');
    expect(res.statusCode).toBe(200);
    expect(res.json().map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
  });

  it('patches the name and settings, keeping the rest', async () => {
    const { id } = await createApplication(t, { default_allowed_devices: 4 });
    const res = await consoleRequest(t, 'PATCH', `/applications/${id}`, { name: 'Renamed', anonymous_access: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, name: 'Renamed', anonymous_access: true, default_allowed_devices: 4, device_auth: true });
    const bad = await consoleRequest(t, 'PATCH', `/applications/${id}`, { default_allowed_devices: -1 });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('default_allowed_devices');
    expect((await consoleRequest(t, 'GET', `/applications/${id}`)).json().default_allowed_devices).toBe(4);
  });

  it('deletes an application; its credentials stop working', async () => {
    const app = await createApplication(t, { anonymous_access: true });
    const del = await consoleRequest(t, 'DELETE', `/applications/${app.id}`);
    expect(del.statusCode).toBe(204);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}`)).statusCode).toBe(404);
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}`)).statusCode).toBe(404);
    const ctx = await t.inject({ method: 'GET', url: '/api/integration/app_context', headers: app.headers });
    expect(ctx.statusCode).toBe(401);
  });

  it('answers 404 for another owner’s application on every verb, and changes nothing', async () => {
    const theirs = await createApplication(t, { name: 'Theirs', anonymous_access: true }, await otherOwnerToken(t));
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/applications/${theirs.id}`],
      ['PATCH', `/applications/${theirs.id}`, { name: 'Mine now' }],
      ['DELETE', `/applications/${theirs.id}`],
      ['POST', `/applications/${theirs.id}/credentials/api_secret/rotate`],
      ['POST', `/applications/${theirs.id}/credentials/request_signing_key/rotate`],
      ['POST', `/applications/${theirs.id}/credentials/response_signing_key/rotate`],
      ['DELETE', `/applications/${theirs.id}/credentials/response_signing_key/previous`],
      ['POST', `/applications/${theirs.id}/licenses`, { count: 1, minutes: null }],
      ['GET', `/applications/${theirs.id}/licenses`],
      ['GET', `/applications/${theirs.id}/variables`],
      ['PUT', `/applications/${theirs.id}/variables/x`, { value: 'v', is_public: true }],
      ['GET', `/applications/${theirs.id}/announcements`],
      ['GET', `/applications/${theirs.id}/users`],
      ['GET', `/applications/${theirs.id}/bans`],
      ['POST', `/applications/${theirs.id}/bans`, { type: 'ip', value: '10.0.0.1' }],
      ['POST', `/applications/${theirs.id}/adjustments`, { user_ids: [MISSING_ID], grant_lifetime: true }],
    ];
    for (const [method, url, payload] of attempts) {
      const res = await consoleRequest(t, method as 'GET', url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error_code).toBe('APPLICATION_NOT_FOUND');
    }
    const stored = await t.store.findApplication(theirs.id);
    expect(stored?.name).toBe('Theirs');
    const ctx = await t.inject({ method: 'GET', url: '/api/integration/app_context', headers: theirs.headers });
    expect(ctx.statusCode).toBe(200);
  });

  it('answers 404 for an unknown application and 422 naming app_id for a malformed one', async () => {
    const missing = await consoleRequest(t, 'GET', `/applications/${MISSING_ID}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error_code).toBe('APPLICATION_NOT_FOUND');
    const malformed = await consoleRequest(t, 'GET', '/applications/not-a-uuid');
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().errors[0].field).toBe('app_id');
  });
});

describe('credential rotation', () => {
  it('rotating the API secret makes the old one fail at once and the new one work', async () => {
    const app = await createApplication(t, { anonymous_access: true });
    const before = await t.inject({ method: 'GET', url: '/api/integration/app_context', headers: app.headers });
    expect(before.statusCode).toBe(200);

    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/api_secret/rotate`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['api_secret']);
    expect(body.api_secret).toMatch(/^gh_sk_/);
    expect(body.api_secret).not.toBe(app.credentials.api_secret);

    const old = await t.inject({ method: 'GET', url: '/api/integration/app_context', headers: app.headers });
    expect(old.statusCode).toBe(401);
    expect(old.json().error_code).toBe('INVALID_API_CREDENTIALS');
    const fresh = await t.inject({
      method: 'GET',
      url: '/api/integration/app_context',
      headers: { 'x-api-key': app.credentials.api_key, 'x-api-secret': body.api_secret },
    });
    expect(fresh.statusCode).toBe(200);
  });

  it('rotating the admin API key makes the old one fail on the admin API', async () => {
    const app = await createApplication(t);
    const lookup = (key: string) => t.inject({ method: 'GET', url: '/api/admin/user/nobody', headers: bearerOf(key) });
    expect((await lookup(app.credentials.admin_api_key)).statusCode).toBe(404);
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/admin_api_key/rotate`);
    expect(res.statusCode).toBe(200);
    const fresh = res.json().admin_api_key as string;
    expect(fresh).toMatch(/^gh_adm_/);
    expect((await lookup(app.credentials.admin_api_key)).statusCode).toBe(401);
    expect((await lookup(fresh)).statusCode).toBe(404);
  });

  it('refuses an unknown credential kind with 422 naming kind', async () => {
    const app = await createApplication(t);
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/api_key/rotate`);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('kind');
  });
});
