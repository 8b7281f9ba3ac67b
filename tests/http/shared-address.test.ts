// One attacker behind a shared address (NAT) trips the address's failure limit; the accounts that
// have signed in from that address before keep being served (issue 12).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError, login, member, signUp, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp({ limits: { lockoutThreshold: 10, ipFailureLimit: 5 } });
  app = await createApplication(t, { device_auth: false, default_allowed_sessions: 5 });
});
afterEach(() => t.close());

const NAT = { ip: '192.0.2.10' };

it('past the address limit, accounts that signed in from the address are still served; others get 429', async () => {
  const alice = await member(t, app, 'alice');
  const bob = await member(t, app, 'bob');
  // Alice signs in from the office NAT before the attack; Bob never has.
  expect((await login(t, app, { username: 'alice', password: alice.password }, {}, NAT)).statusCode).toBe(200);
  for (let i = 0; i < 5; i++) await login(t, app, { username: `random-${i}`, password: 'guess-guess' }, {}, NAT);

  expectError(await login(t, app, { username: 'bob', password: bob.password }, {}, NAT), 429, 'RATE_LIMITED');
  expect((await login(t, app, { username: 'alice', password: alice.password }, {}, NAT)).statusCode).toBe(200);
  // Her legacy and activation checks too; a wrong password is a plain failure, not a free pass.
  const [code] = await createLicenses(t, app.id, 1, 60);
  expect((await call(t, app, 'POST', '/activate_license', { code, username: 'alice', password: alice.password }, NAT)).statusCode).toBe(200);
  expectError(await login(t, app, { username: 'alice', password: 'not her password' }, {}, NAT), 401, 'INVALID_CREDENTIALS');
  // Bob is served from elsewhere, as ever.
  expect((await login(t, app, { username: 'bob', password: bob.password }, {}, { ip: '198.51.100.20' })).statusCode).toBe(200);
});

it('a license-code user who signed up from the address is served past its limit', async () => {
  const [code] = await createLicenses(t, app.id, 1, 60);
  expect((await call(t, app, 'POST', '/sign_up_with_license_code', { code }, NAT)).statusCode).toBe(201);
  await signUp(t, app, 'carol', 'password123');
  for (let i = 0; i < 5; i++) await login(t, app, { username: `random-${i}`, password: 'guess-guess' }, {}, NAT);
  expectError(await login(t, app, { username: 'carol', password: 'password123' }, {}, NAT), 429, 'RATE_LIMITED');
  expect((await login(t, app, { code: code as string }, {}, NAT)).statusCode).toBe(200);
});
