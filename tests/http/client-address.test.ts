import { afterEach, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, call, expectError } from '../support/integration.js';

let t: TestApp;
afterEach(() => t.close());

const spoofed = { 'x-forwarded-for': '10.50.0.1' };

it('X-Forwarded-For is ignored unless the request comes from a configured proxy', async () => {
  t = await startTestApp();
  const app = await createApplication(t, { anonymous_access: true });
  await ban(t, app, 'ip', '10.50.0.1');
  // A client cannot claim another address, neither to dodge a ban nor to frame one.
  expect((await call(t, app, 'GET', '/app_context', undefined, { headers: spoofed, ip: '10.60.0.1' })).statusCode).toBe(200);
  expectError(await call(t, app, 'GET', '/app_context', undefined, { ip: '10.50.0.1' }), 403, 'BANNED');
});

it('behind a configured proxy, the forwarded client address is the one checked and recorded', async () => {
  t = await startTestApp({ trustProxy: ['10.70.0.1'] });
  const app = await createApplication(t, { anonymous_access: true, device_auth: false });
  await ban(t, app, 'ip', '10.50.0.1');
  expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: spoofed, ip: '10.70.0.1' }), 403, 'BANNED');
  const res = await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123' }, { headers: { 'x-forwarded-for': '10.80.0.9' }, ip: '10.70.0.1' });
  expect(res.statusCode).toBe(201);
  const user = await t.inject({ method: 'GET', url: `/api/admin/user/alice`, headers: { authorization: `Bearer ${app.credentials.admin_api_key}` } });
  expect(user.json().last_ip).toBe('10.80.0.9');
});
