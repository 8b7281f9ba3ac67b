// Targeted lockout (issue 12): guesses lock an account only for the address they came from, the
// hourly limit locks it everywhere, and owners lift locks from the console.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError, login, member, type TestApplication } from '../support/integration.js';
import { otherOwnerToken } from './console-helpers.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp({ limits: { lockoutThreshold: 10, ipFailureLimit: 1000, accountFailureLimit: 30 } });
  app = await createApplication(t, { device_auth: false });
});
afterEach(() => t.close());

const ATTACKER = { ip: '203.0.113.66' };
const HOME = { ip: '198.51.100.7' };

async function guessTenTimes(username: string) {
  for (let i = 0; i < 10; i++) expectError(await login(t, app, { username, password: `guess-${i}-wrong` }, {}, ATTACKER), 401, 'INVALID_CREDENTIALS');
}

describe('a stranger\'s guesses', () => {
  it('lock the account for the guessing address only: its owner still signs in from home', async () => {
    const alice = await member(t, app, 'alice');
    await guessTenTimes('alice');
    // The attacker is locked out, the right password included.
    expectError(await login(t, app, { username: 'alice', password: alice.password }, {}, ATTACKER), 429, 'ACCOUNT_LOCKED');
    expect((await login(t, app, { username: 'alice', password: alice.password }, {}, HOME)).statusCode).toBe(200);
    // The owner's success does not unlock the attacker's address.
    expectError(await login(t, app, { username: 'alice', password: 'guess-again' }, {}, ATTACKER), 429, 'ACCOUNT_LOCKED');
  });

  it('past the hourly limit from every address, lock the account everywhere', async () => {
    const bob = await member(t, app, 'bob');
    // 30 failures from three addresses, ten each: each address is locked, then every address is.
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      for (let i = 0; i < 10; i++) await login(t, app, { username: 'bob', password: `guess-${i}-wrong` }, {}, { ip });
    }
    const locked = expectError(await login(t, app, { username: 'bob', password: bob.password }, {}, HOME), 429, 'ACCOUNT_LOCKED');
    expect(locked.message).toMatch(/this account/);
  });
});

describe('DELETE /api/console/applications/{app_id}/users/{user_id}/lock', () => {
  it('lifts the user\'s locks at every address: password, license code and code guesses', async () => {
    const alice = await member(t, app, 'alice');
    await guessTenTimes('alice');
    // Alice locked on code guesses at activation too; carol is a license-code user.
    const [code] = await createLicenses(t, app.id, 1, 60);
    const carol = (await call(t, app, 'POST', '/sign_up_with_license_code', { code })).json() as { id: string };
    for (let i = 0; i < 10; i++) await call(t, app, 'POST', '/activate_license', { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', username: 'alice', password: alice.password }, HOME);
    expectError(await call(t, app, 'POST', '/activate_license', { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', username: 'alice', password: alice.password }, HOME), 429, 'ACCOUNT_LOCKED');

    const res = await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${alice.id}/lock`);
    expect(res.statusCode).toBe(204);
    expect((await login(t, app, { username: 'alice', password: alice.password }, {}, ATTACKER)).statusCode).toBe(200);
    expectError(await call(t, app, 'POST', '/activate_license', { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', username: 'alice', password: alice.password }, HOME), 401, 'LICENSE_INVALID');
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${carol.id}/lock`)).statusCode).toBe(204);
    expect((await login(t, app, { code: code as string }, {}, HOME)).statusCode).toBe(200);
  });

  it('404 USER_NOT_FOUND for an unknown user, another application\'s user, or another owner\'s application', async () => {
    const other = await createApplication(t, { device_auth: false });
    const stranger = await member(t, other, 'stranger');
    await guessTenTimesAt(other, 'stranger');
    expectError(await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${stranger.id}/lock`), 404, 'USER_NOT_FOUND');
    expectError(await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/00000000-0000-4000-8000-000000000000/lock`), 404, 'USER_NOT_FOUND');
    // The refused unlock changed nothing.
    expectError(await login(t, other, { username: 'stranger', password: stranger.password }, {}, ATTACKER), 429, 'ACCOUNT_LOCKED');
    const theirs = await t.inject({
      method: 'DELETE',
      url: `/api/console/applications/${other.id}/users/${stranger.id}/lock`,
      headers: { authorization: `Bearer ${await otherOwnerToken(t)}` },
    });
    expectError(theirs, 404, 'APPLICATION_NOT_FOUND');
  });
});

async function guessTenTimesAt(application: TestApplication, username: string) {
  for (let i = 0; i < 10; i++) await login(t, application, { username, password: `guess-${i}-wrong` }, {}, ATTACKER);
}
