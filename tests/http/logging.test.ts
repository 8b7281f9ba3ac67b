import { afterEach, describe, expect, it } from 'vitest';
import { createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, member, token } from '../support/integration.js';
import { wrapPasswordWork } from '../support/password-work.js';

let t: TestApp;
afterEach(() => t.close());

it('secrets in headers and bodies never reach the log', async () => {
  const lines: string[] = [];
  t = await startTestApp({ logLines: lines });
  const app = await createApplication(t, { device_auth: false, legacy_auth: true, default_allowed_sessions: 5 });
  const u = await member(t, app, 'alice', 'alice-logged-password');
  const tok = await token(t, app, { username: 'alice', password: u.password });
  await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) });
  await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-username': 'alice', 'x-api-password': u.password } });
  await call(t, app, 'GET', '/app_context', undefined, { headers: { 'x-api-license-code': u.code } });
  // License codes also travel in paths: the admin lookup and the console's license routes.
  await t.inject({ method: 'GET', url: `/api/admin/user/${u.code.toLowerCase()}`, headers: { authorization: `Bearer ${app.credentials.admin_api_key}` } });
  await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/licenses/${u.code}`, headers: { authorization: `Bearer ${t.ownerToken}` } });
  await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/users?query=${u.code}`, headers: { authorization: `Bearer ${t.ownerToken}` } });
  // A remembered login's refresh tokens, the one issued and the one a refresh answers.
  const remembered = await call(t, app, 'POST', '/auth/login', { credentials: { username: 'alice', password: u.password }, hardware_id: 'hw-log', remember: true });
  const kept = remembered.json<{ refresh_token: string }>().refresh_token;
  const next = (await call(t, app, 'POST', '/auth/refresh', { refresh_token: kept, hardware_id: 'hw-log' })).json<{ refresh_token: string }>().refresh_token;
  // The dashboard's session cookie and its CSRF token are secrets too.
  const browser = await t.inject({ method: 'POST', url: '/api/console/session', payload: { email: 'owner@example.com', password: 'owner-password-1' } });
  const cookie = /gh_console=([^;]+)/.exec(String(browser.headers['set-cookie']))?.[1] ?? 'missing';
  const csrf = browser.json().csrf_token as string;
  await t.inject({ method: 'DELETE', url: '/api/console/session', headers: { cookie: `gh_console=${cookie}`, 'x-csrf-token': csrf } });

  const log = lines.join('\n');
  expect(log).toContain('"url":"/api/integration/app_context"');
  expect(log).toContain('[redacted]');
  expect(log).toContain('[license-code]');
  for (const secret of [tok, kept, next, u.password, u.code, u.code.toLowerCase(), app.credentials.api_secret, app.credentials.admin_api_key, t.ownerToken, cookie, csrf]) {
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

describe('license codes are masked in any code-shaped run of a logged URL', () => {
  /** Every character percent-encoded, as a client may send it. */
  const encodeAll = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

  it('near-code forms: a trailing `;x` or `%`, percent-encoding, other separators, look-alikes, an extra symbol', async () => {
    const lines: string[] = [];
    t = await startTestApp({ logLines: lines });
    const app = await createApplication(t, { device_auth: false });
    const [code] = (await createLicenses(t, app.id, 1, 60)) as [string];
    const compact = code.replace(/-/g, '');
    const lookAlikes = code.replace(/1/g, 'l').replace(/0/g, 'o').toLowerCase();
    const forms = [
      `${code};x`,
      `${code}%`,
      `${code}%25`,
      encodeAll(code),
      code.replace(/-/g, '%2D'),
      code.replace(/-/g, '%20'),
      code.replace(/-/g, '+'),
      `${compact}X`,
      `X${compact}`,
      lookAlikes,
      `${code.slice(0, 12)}%${code.slice(12)}`,
    ];
    const admin = { authorization: `Bearer ${app.credentials.admin_api_key}` };
    for (const form of forms) {
      await t.inject({ method: 'GET', url: `/api/admin/user/${form}`, headers: admin });
      await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/users?query=${form}&limit=5`, headers: { authorization: `Bearer ${t.ownerToken}` } });
      await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/licenses/${form}/x`, headers: { authorization: `Bearer ${t.ownerToken}` } });
    }
    const log = lines.join('\n');
    // The application's id (a UUID) is not a license code: it stays readable.
    expect(log).toContain(`/api/console/applications/${app.id}/users?query=[license-code]&limit=5`);
    expect(log).toContain('/api/admin/user/[license-code];x');
    for (const form of forms) expect(log.includes(form), `log holds ${form}`).toBe(false);
    // No group of the code, in either case, survives anywhere.
    for (const group of code.split('-')) {
      expect(log.toUpperCase().includes(group), `log holds the group ${group}`).toBe(false);
    }
  });
});
