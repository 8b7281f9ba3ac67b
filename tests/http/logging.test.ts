import { afterEach, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, member, token } from '../support/integration.js';
import { wrapPasswordWork } from '../support/password-work.js';

let t: TestApp;
afterEach(() => t.close());

it('secrets in headers and bodies never reach the log', async () => {
  const lines: string[] = [];
  t = await startTestApp({ logLines: lines });
  const app = await createApplication(t, { device_auth: false, legacy_auth: true });
  const u = await member(t, app, 'alice', 'alice-logged-password');
  const tok = await token(t, app, { username: 'alice', password: u.password });
  await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) });
  await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'alice', 'x-api-password': u.password } });
  await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-license-code': u.code } });
  // License codes also travel in paths: the admin lookup and the console's license routes.
  await t.inject({ method: 'GET', url: `/api/admin/user/${u.code.toLowerCase()}`, headers: { authorization: `Bearer ${app.credentials.admin_api_key}` } });
  await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/licenses/${u.code}`, headers: { authorization: `Bearer ${t.ownerToken}` } });
  await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/users?query=${u.code}`, headers: { authorization: `Bearer ${t.ownerToken}` } });
  // The dashboard's session cookie and its CSRF token are secrets too.
  const browser = await t.inject({ method: 'POST', url: '/api/console/session', payload: { email: 'owner@example.com', password: 'owner-password-1' } });
  const cookie = /gh_console=([^;]+)/.exec(String(browser.headers['set-cookie']))?.[1] ?? 'missing';
  const csrf = browser.json().csrf_token as string;
  await t.inject({ method: 'DELETE', url: '/api/console/session', headers: { cookie: `gh_console=${cookie}`, 'x-csrf-token': csrf } });

  const log = lines.join('\n');
  expect(log).toContain('"url":"/api/integration/app_context"');
  expect(log).toContain('[redacted]');
  expect(log).toContain('[license-code]');
  for (const secret of [tok, u.password, u.code, u.code.toLowerCase(), app.credentials.api_secret, app.credentials.admin_api_key, t.ownerToken, cookie, csrf]) {
    expect(log.includes(secret), `log holds ${secret.slice(0, 10)}…`).toBe(false);
  }
});

it('an unknown username costs the same argon2 verification as a wrong password', async () => {
  t = await startTestApp();
  const app = await createApplication(t, { device_auth: false });
  await member(t, app, 'bob');
  const calls: string[] = [];
  wrapPasswordWork(t.deps, (work) => ({
    ...work,
    verify: (h, p) => (calls.push('verify'), work.verify(h, p)),
    verifyDummy: (p) => (calls.push('dummy'), work.verifyDummy(p)),
  }));
  const wrong = await call(t, app, 'POST', '/auth/login', { credentials: { username: 'bob', password: 'not the password' } });
  const unknown = await call(t, app, 'POST', '/auth/login', { credentials: { username: 'nobody-here', password: 'not the password' } });
  expect(wrong.body).toBe(unknown.body);
  expect(calls).toEqual(['verify', 'dummy']);
});
