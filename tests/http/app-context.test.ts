import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, bearer, call, expectError, member, signUp, token, type TestApplication } from '../support/integration.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

async function withContent(app: TestApplication) {
  await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/version`, { value: '1.2.3', is_public: true });
  await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/secret_url`, { value: 'https://x', is_public: false });
  const ann = (title: string, status: string, from: string, until: string | null) =>
    consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, { title, content_html: `<p>${title}</p>`, status, publish_from: from, publish_until: until });
  await ann('old', 'PUBLISHED', '2026-06-01T00:00:00.000Z', null);
  await ann('new', 'PUBLISHED', '2026-06-08T11:00:00.000Z', '2026-06-09T00:00:00.000Z');
  await ann('future', 'PUBLISHED', '2026-06-08T12:00:00.001Z', null);
  await ann('ended', 'PUBLISHED', '2026-06-01T00:00:00.000Z', '2026-06-08T12:00:00.000Z');
  await ann('draft', 'DRAFT', '2026-06-01T00:00:00.000Z', null);
  await ann('archived', 'ARCHIVED', '2026-06-01T00:00:00.000Z', null);
}

describe('GET /app_context', () => {
  it('401 LOGIN_REQUIRED with the exact message when anonymous access is off and no user is sent', async () => {
    const app = await createApplication(t);
    const body = expectError(await call(t, app, 'GET', '/app_context'), 401, 'LOGIN_REQUIRED');
    expect(body.message).toBe('Only logged in users are allowed to access');
  });

  it('401 INVALID_API_CREDENTIALS for a wrong key or secret, and without them', async () => {
    const app = await createApplication(t, { anonymous_access: true });
    expectError(await call(t, { ...app, headers: { 'x-api-key': app.headers['x-api-key'] as string, 'x-api-secret': 'x' } }, 'GET', '/app_context'), 401, 'INVALID_API_CREDENTIALS');
    expectError(await call(t, { ...app, headers: {} }, 'GET', '/app_context'), 401, 'INVALID_API_CREDENTIALS');
  });

  it('the session a token names is read with the application but counts only after its credentials, and only for it', async () => {
    const app = await createApplication(t, { device_auth: false });
    const other = await createApplication(t, { device_auth: false });
    await consoleRequest(t, 'PUT', `/applications/${other.id}/variables/other_only`, { value: 'x', is_public: false });
    const u = await member(t, app, 'alice', undefined, 90);
    const tok = await token(t, app, { username: 'alice', password: u.password });
    expect((await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) })).statusCode).toBe(200);
    // A live token does not stand in for the application's secret.
    const wrongSecret = { ...app, headers: { 'x-api-key': app.headers['x-api-key'] as string, 'x-api-secret': 'x' } };
    expectError(await call(t, wrongSecret, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'INVALID_API_CREDENTIALS');
    // Nor does it open another application, whose content stays unserved.
    const crossed = await call(t, other, 'GET', '/app_context', undefined, { headers: bearer(tok) });
    expectError(crossed, 401, 'INVALID_CREDENTIALS');
    expect(crossed.body).not.toContain('other_only');
    // Ended at logout: the next request reads the session afresh and is refused.
    expect((await call(t, app, 'POST', '/auth/logout', undefined, { headers: bearer(tok) })).statusCode).toBe(204);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'SESSION_EXPIRED');
  });

  it('requests of two applications read together (one statement on PostgreSQL) each answer for their own application, and crossed tokens are refused', async () => {
    const apps = [await createApplication(t, { device_auth: false }), await createApplication(t, { device_auth: false })];
    const tokens: string[] = [];
    for (const [i, app] of apps.entries()) {
      await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/only_${i}`, { value: `v${i}`, is_public: false });
      const u = await member(t, app, `user${i}`, undefined, 90);
      tokens.push(await token(t, app, { username: `user${i}`, password: u.password }));
    }
    // Each application with its own member's token and with the other's, all at once.
    const asks = [0, 1, 0, 1].flatMap((a) => [
      { a, tok: tokens[a]!, ok: true },
      { a, tok: tokens[1 - a]!, ok: false },
    ]);
    const answers = await Promise.all(asks.map(({ a, tok }) => call(t, apps[a]!, 'GET', '/app_context', undefined, { headers: bearer(tok) })));
    for (const [i, { a, ok }] of asks.entries()) {
      const res = answers[i]!;
      if (ok) {
        expect(res.statusCode).toBe(200);
        expect(res.json<{ application: { id: string; variables: Array<{ name: string }> } }>().application).toMatchObject({ id: apps[a]!.id, variables: [{ name: `only_${a}`, value: `v${a}` }] });
        expect(res.json<{ user: { username: string } }>().user.username).toBe(`user${a}`);
      } else {
        expectError(res, 401, 'INVALID_CREDENTIALS');
        expect(res.body).not.toContain('only_');
      }
    }
  });

  it('a member sees every variable, live announcements newest first, their membership and the server time', async () => {
    const app = await createApplication(t, { device_auth: false });
    await withContent(app);
    const u = await member(t, app, 'alice', undefined, 90);
    const tok = await token(t, app, { username: 'alice', password: u.password });
    const res = await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.application).toEqual({
      id: app.id,
      name: 'Test App',
      variables: [
        { name: 'secret_url', value: 'https://x' },
        { name: 'version', value: '1.2.3' },
      ],
      files: [],
    });
    expect(body.announcements.map((a: { title: string }) => a.title)).toEqual(['new', 'old']);
    expect(body.announcements[0]).toEqual({
      id: expect.any(String),
      title: 'new',
      content_html: '<p>new</p>',
      publish_from: '2026-06-08T11:00:00.000Z',
      publish_until: '2026-06-09T00:00:00.000Z',
      status: 'PUBLISHED',
      publication_date: '2026-06-08',
    });
    expect(body.user).toEqual({
      id: u.id,
      username: 'alice',
      membership: { is_active: true, is_lifetime: false, active_until: '2026-06-08T13:30:00.000Z', plan: null, entitlements: [], in_grace: false, grace_ends_at: null },
    });
    expect(body.server_time).toBe('2026-06-08T12:00:00.000Z');
  });

  it('anonymous callers see public variables only and user null', async () => {
    const app = await createApplication(t, { anonymous_access: true });
    await withContent(app);
    const res = await call(t, app, 'GET', '/app_context');
    expect(res.statusCode).toBe(200);
    expect(res.json().application.variables).toEqual([{ name: 'version', value: '1.2.3' }]);
    expect(res.json().user).toBeNull();
  });

  it('with anonymous access allowed, an authenticated member sees private items, and user stays null', async () => {
    const app = await createApplication(t, { anonymous_access: true, device_auth: false });
    await withContent(app);
    const u = await member(t, app, 'bob');
    const tok = await token(t, app, { username: 'bob', password: u.password });
    const res = await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) });
    expect(res.json().application.variables).toHaveLength(2);
    expect(res.json().user).toBeNull();
  });

  it('403 MEMBERSHIP_INACTIVE when the membership expires while the session lives', async () => {
    const app = await createApplication(t, { device_auth: false, session_ttl_seconds: 7200 });
    const u = await member(t, app, 'carol', undefined, 30);
    const tok = await token(t, app, { username: 'carol', password: u.password });
    t.clock.advance(30 * 60_000);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 403, 'MEMBERSHIP_INACTIVE');
  });

  it('403 BANNED for a banned user, and an anonymous caller from a banned IP', async () => {
    const app = await createApplication(t, { device_auth: false });
    const u = await member(t, app, 'dave');
    const tok = await token(t, app, { username: 'dave', password: u.password });
    await ban(t, app, 'user', u.id);
    // Banning a user revokes their sessions; legacy credentials then meet the ban itself.
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) }), 401, 'SESSION_EXPIRED');
    const anon = await createApplication(t, { anonymous_access: true });
    await ban(t, anon, 'ip', '10.5.5.5');
    expectError(await call(t, anon, 'GET', '/app_context', undefined, { ip: '10.5.5.5' }), 403, 'BANNED');
  });
});

describe('legacy per-request credentials', () => {
  it('401 LEGACY_AUTH_DISABLED until the application enables them', async () => {
    const app = await createApplication(t, { device_auth: false });
    const u = await member(t, app, 'erin');
    const headers = { 'x-api-username': 'erin', 'x-api-password': u.password };
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers }), 401, 'LEGACY_AUTH_DISABLED');
  });

  it('username/password and license-code headers authenticate each request', async () => {
    const app = await createApplication(t, { device_auth: true, legacy_auth: true });
    const u = await member(t, app, 'frank', undefined, 60, { hardware_id: 'HW-F' });
    const ok = await call(t, app, 'GET', '/app_context', undefined, {
      headers: { 'x-api-username': 'frank', 'x-api-password': u.password, 'x-hardware-id': 'HW-F' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().user.username).toBe('frank');
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'frank', 'x-api-password': u.password } }), 401, 'DEVICE_REQUIRED');
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'frank', 'x-api-password': 'nope-nope', 'x-hardware-id': 'HW-F' } }), 401, 'INVALID_CREDENTIALS');
    const [code] = await createLicenses(t, app.id, 1, 60);
    await call(t, app, 'POST', '/sign_up_with_license_code', { code, hardware_id: 'HW-L' });
    const byCode = await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-license-code': code as string, 'x-hardware-id': 'HW-L' } });
    expect(byCode.statusCode).toBe(200);
  });

  it('403 TIMED_OUT body for legacy credentials during a timeout', async () => {
    const app = await createApplication(t, { device_auth: true, legacy_auth: true });
    const u = await member(t, app, 'gina', undefined, 60, { hardware_id: 'HW-G' });
    await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${u.id}/timeout`, { until: '2026-06-08T12:10:00.000Z' });
    const body = expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'gina', 'x-api-password': u.password, 'x-hardware-id': 'HW-G' } }), 403, 'TIMED_OUT');
    expect(body).toMatchObject({ timed_out_until: '2026-06-08T12:10:00.000Z' });
    // reason is an optional string: absent when the owner gave none.
    expect(body).not.toHaveProperty('reason');
  });

  it('403 MEMBERSHIP_INACTIVE for legacy credentials of a user without a membership', async () => {
    const app = await createApplication(t, { device_auth: true, legacy_auth: true });
    await signUp(t, app, 'hank', 'password123', { hardware_id: 'HW-H' });
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'hank', 'x-api-password': 'password123', 'x-hardware-id': 'HW-H' } }), 403, 'MEMBERSHIP_INACTIVE');
  });
});
