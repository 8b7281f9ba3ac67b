// Successful sign-ups are limited per address (IPv6 by /64) and per application (issue 12).
import { afterEach, expect, it } from 'vitest';
import { createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError, type TestApplication } from '../support/integration.js';

let t: TestApp;
afterEach(() => t.close());

const signUp = (app: TestApplication, username: string, ip: string) => call(t, app, 'POST', '/sign_up', { username, password: 'password123' }, { ip });

it('a flood of sign-ups from one address is cut at the limit, with Retry-After; other addresses and applications go on', async () => {
  t = await startTestApp({ signUpLimits: { perAddress: 5, perApplication: 1000 } });
  const app = await createApplication(t, { device_auth: false });
  const other = await createApplication(t, { device_auth: false });
  const results = [];
  for (let i = 0; i < 12; i++) results.push(await signUp(app, `flood${i}`, '203.0.113.50'));
  expect(results.map((r) => r.statusCode)).toEqual([...Array<number>(5).fill(201), ...Array<number>(7).fill(429)]);
  const refused = expectError(results[5]!, 429, 'RATE_LIMITED');
  expect(refused.message).toMatch(/sign-ups from this address/);
  expect(Number(results[5]!.headers['retry-after'])).toBe(3600);
  // A license sign-up from that address is refused too; from another address it goes on.
  const [code] = await createLicenses(t, app.id, 1, 60);
  expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code }, { ip: '203.0.113.50' }), 429, 'RATE_LIMITED');
  expect((await signUp(app, 'neighbour', '203.0.113.51')).statusCode).toBe(201);
  expect((await signUp(other, 'flood0', '203.0.113.50')).statusCode).toBe(201);
  // The window ends after an hour.
  t.clock.advance(3_600_000);
  expect((await signUp(app, 'flood12', '203.0.113.50')).statusCode).toBe(201);
});

it('an IPv6 client counts by its /64, and failed sign-ups (a taken name) do not count', async () => {
  t = await startTestApp({ signUpLimits: { perAddress: 2, perApplication: 1000 } });
  const app = await createApplication(t, { device_auth: false });
  expect((await signUp(app, 'six1', '2001:db8:5:6::1')).statusCode).toBe(201);
  expectError(await signUp(app, 'six1', '2001:db8:5:6::2'), 422, 'USERNAME_TAKEN');
  expect((await signUp(app, 'six2', '2001:db8:5:6:aaaa::9')).statusCode).toBe(201);
  expectError(await signUp(app, 'six3', '2001:db8:5:6:ffff::3'), 429, 'RATE_LIMITED');
  expect((await signUp(app, 'six3', '2001:db8:5:7::1')).statusCode).toBe(201);
});

it('a full application refuses sign-ups from every address, and another application\'s are unaffected', async () => {
  t = await startTestApp({ signUpLimits: { perAddress: 100, perApplication: 3 } });
  const app = await createApplication(t, { device_auth: false });
  const other = await createApplication(t, { device_auth: false });
  for (let i = 0; i < 3; i++) expect((await signUp(app, `user${i}`, `198.51.100.${i + 1}`)).statusCode).toBe(201);
  const full = expectError(await signUp(app, 'user3', '198.51.100.9'), 429, 'RATE_LIMITED');
  expect(full.message).toMatch(/sign-ups on this application/);
  for (let i = 0; i < 3; i++) expect((await signUp(other, `user${i}`, `198.51.100.${i + 1}`)).statusCode).toBe(201);
});
