// Successful sign-ups are limited per address (IPv6 by /64) and per application (issue 12).
import { afterEach, expect, it } from 'vitest';
import { isWebhookEvent } from '../../src/application/events/event-draft.js';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError, type TestApplication } from '../support/integration.js';

let t: TestApp;
afterEach(() => t.close());

const signUp = (app: TestApplication, username: string, ip: string) => call(t, app, 'POST', '/sign_up', { username, password: 'password123' }, { ip });

it('a flood of sign-ups from one address is cut at the limit, with Retry-After; other addresses and applications go on', async () => {
  t = await startTestApp({ signUpLimits: { perAddress: 5 } });
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
  t = await startTestApp({ signUpLimits: { perAddress: 2 } });
  const app = await createApplication(t, { device_auth: false });
  expect((await signUp(app, 'six1', '2001:db8:5:6::1')).statusCode).toBe(201);
  expectError(await signUp(app, 'six1', '2001:db8:5:6::2'), 422, 'USERNAME_TAKEN');
  expect((await signUp(app, 'six2', '2001:db8:5:6:aaaa::9')).statusCode).toBe(201);
  expectError(await signUp(app, 'six3', '2001:db8:5:6:ffff::3'), 429, 'RATE_LIMITED');
  expect((await signUp(app, 'six3', '2001:db8:5:7::1')).statusCode).toBe(201);
});

it("a full application refuses sign-ups from every address, and another application's are unaffected", async () => {
  t = await startTestApp({ signUpLimits: { perAddress: 100 } });
  const app = await createApplication(t, { device_auth: false, sign_ups_per_hour: 3 });
  const other = await createApplication(t, { device_auth: false, sign_ups_per_hour: 3 });
  for (let i = 0; i < 3; i++) expect((await signUp(app, `user${i}`, `198.51.100.${i + 1}`)).statusCode).toBe(201);
  const full = expectError(await signUp(app, 'user3', '198.51.100.9'), 429, 'RATE_LIMITED');
  expect(full.message).toMatch(/sign-ups on this application/);
  for (let i = 0; i < 3; i++) expect((await signUp(other, `user${i}`, `198.51.100.${i + 1}`)).statusCode).toBe(201);
});

// The review's finding (issue 39, item 4): a limit per application of 1,000 an hour, on by
// default, refused a successful launch. It is off unless an owner sets sign_ups_per_hour.
it('by default an application takes any number of sign-ups an hour; each address is still limited', async () => {
  t = await startTestApp({ signUpLimits: { perAddress: 2 } });
  const app = await createApplication(t, { device_auth: false });
  expect((await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().sign_ups_per_hour).toBeNull();
  // One more than the old default of 1,000 an hour, 25 at a time as a launch brings them.
  for (let batch = 0; batch < 1001; batch += 25) {
    const ids = Array.from({ length: Math.min(25, 1001 - batch) }, (_, j) => batch + j);
    const codes = await Promise.all(ids.map(async (i) => (await signUp(app, `launch${i}`, `10.${80 + (i >> 8)}.${i & 255}.1`)).statusCode));
    expect(codes).toEqual(ids.map(() => 201));
  }
  for (const name of ['again1', 'again2']) expect((await signUp(app, name, '10.90.0.1')).statusCode).toBe(201);
  expectError(await signUp(app, 'again3', '10.90.0.1'), 429, 'RATE_LIMITED');
});

it("an owner's limit records sign_up.limited once, when a sign-up fills the window, and webhooks may subscribe to it", async () => {
  t = await startTestApp({ signUpLimits: { perAddress: 100 } });
  const app = await createApplication(t, { device_auth: false });
  const set = await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { sign_ups_per_hour: 2 });
  expect(set.json().sign_ups_per_hour).toBe(2);
  for (const bad of [0, 100_000_001, 1.5, '2']) {
    expectError(await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { sign_ups_per_hour: bad }), 422, 'VALIDATION_FAILED');
  }
  const limited = async () => (await t.store.listEvents(app.id, {}, { limit: 100 })).filter((e) => e.action === 'sign_up.limited');
  expect((await signUp(app, 'first', '198.51.100.1')).statusCode).toBe(201);
  expect(await limited()).toHaveLength(0);
  expect((await signUp(app, 'second', '198.51.100.2')).statusCode).toBe(201);
  const [event] = await limited();
  expect(event).toMatchObject({ target: { type: 'application', id: app.id }, data: { limit: 2, window_ends_at: new Date(t.clock.now() + 3_600_000).toISOString() } });
  for (let i = 0; i < 5; i++) expectError(await signUp(app, `refused${i}`, `198.51.100.${10 + i}`), 429, 'RATE_LIMITED');
  expect(await limited()).toHaveLength(1);
  expect(isWebhookEvent('sign_up.limited')).toBe(true);
  // Turned off again, sign-ups go on at once.
  await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { sign_ups_per_hour: null });
  expect((await signUp(app, 'third', '198.51.100.3')).statusCode).toBe(201);
});
