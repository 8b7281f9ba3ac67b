import { afterEach, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, member, token } from '../support/integration.js';

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

  const log = lines.join('\n');
  expect(log).toContain('"url":"/api/integration/app_context"');
  expect(log).toContain('[redacted]');
  for (const secret of [tok, u.password, u.code, app.credentials.api_secret, t.ownerToken]) {
    expect(log.includes(secret), `log holds ${secret.slice(0, 10)}…`).toBe(false);
  }
});

it('an unknown username costs the same argon2 verification as a wrong password', async () => {
  t = await startTestApp();
  const app = await createApplication(t, { device_auth: false });
  await member(t, app, 'bob');
  const calls: string[] = [];
  const real = t.deps.hasher;
  t.deps.hasher = {
    ...real,
    verify: (h, p) => (calls.push('verify'), real.verify(h, p)),
    verifyDummy: (p) => (calls.push('dummy'), real.verifyDummy(p)),
  };
  const wrong = await call(t, app, 'POST', '/auth/login', { credentials: { username: 'bob', password: 'not the password' } });
  const unknown = await call(t, app, 'POST', '/auth/login', { credentials: { username: 'nobody-here', password: 'not the password' } });
  expect(wrong.body).toBe(unknown.body);
  expect(calls).toEqual(['verify', 'dummy']);
});
