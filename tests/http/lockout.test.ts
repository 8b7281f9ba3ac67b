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

describe("a stranger's guesses", () => {
  it('lock the account for the guessing address only: its owner still signs in from home', async () => {
    const alice = await member(t, app, 'alice');
    await guessTenTimes('alice');
    // The attacker is locked out, the right password included.
    expectError(await login(t, app, { username: 'alice', password: alice.password }, {}, ATTACKER), 429, 'ACCOUNT_LOCKED');
    expect((await login(t, app, { username: 'alice', password: alice.password }, {}, HOME)).statusCode).toBe(200);
    // The owner's success does not unlock the attacker's address.
    expectError(await login(t, app, { username: 'alice', password: 'guess-again' }, {}, ATTACKER), 429, 'ACCOUNT_LOCKED');
  });

  it('past the hourly limit from every network, lock the account for addresses it is not known at', async () => {
    const bob = await member(t, app, 'bob');
    // 30 failures from three networks, ten each: each network is locked, then every new address is.
    for (const ip of ['203.0.113.1', '198.18.0.1', '192.0.2.1']) {
      for (let i = 0; i < 10; i++) await login(t, app, { username: 'bob', password: `guess-${i}-wrong` }, {}, { ip });
    }
    const locked = expectError(await login(t, app, { username: 'bob', password: bob.password }, {}, HOME), 429, 'ACCOUNT_LOCKED');
    expect(locked.message).toMatch(/this account/);
  });
});

// The review's reproduction: ten wrong passwords from each of eleven addresses passed the
// account-wide limit (100 an hour) and locked the user out everywhere, right password included.
describe('eleven addresses, ten wrong passwords each (the default limits)', () => {
  const elevenNetworks = Array.from({ length: 11 }, (_, i) => `100.${64 + i}.0.9`);
  const elevenNeighbours = Array.from({ length: 11 }, (_, i) => `203.0.113.${10 + i}`);
  let defaults: TestApplication;
  beforeEach(async () => {
    await t.close();
    t = await startTestApp({ limits: { lockoutThreshold: 10, ipFailureLimit: 100, accountFailureLimit: 100 } });
    defaults = await createApplication(t, { device_auth: true, default_allowed_devices: 2, default_allowed_sessions: 5 });
  });

  async function attack(username: string, addresses: string[]) {
    for (const ip of addresses) {
      for (let i = 0; i < 10; i++) {
        const res = await login(t, defaults, { username, password: `guess-${i}-wrong` }, { hardware_id: `attacker-${ip}` }, { ip });
        expect([401, 429]).toContain(res.statusCode);
      }
    }
  }

  it('from eleven networks: the user still signs in from a familiar address and on a registered device', async () => {
    const carol = await member(t, defaults, 'carol', 'carol-password-1', 60, { hardware_id: 'carols-laptop' });
    const right = { username: 'carol', password: carol.password };
    expect((await login(t, defaults, right, { hardware_id: 'carols-laptop' }, HOME)).statusCode).toBe(200);
    await attack('carol', elevenNetworks);
    // A stranger's new address is locked: the account-wide limit still bounds guessing.
    expectError(await login(t, defaults, right, { hardware_id: 'a-new-machine' }, { ip: '192.0.2.200' }), 429, 'ACCOUNT_LOCKED');
    // Home, where carol signed in before, is not held by the strangers' lock, on a new machine too.
    expect((await login(t, defaults, right, { hardware_id: 'carols-desktop' }, HOME)).statusCode).toBe(200);
    // Nor is her registered laptop at an address she has never used (a hotel, a phone's hotspot).
    expect((await login(t, defaults, right, { hardware_id: 'carols-laptop' }, { ip: '192.0.2.201' })).statusCode).toBe(200);
    // A familiar caller still cannot guess past the limit: a wrong password there fails as ever.
    expectError(await login(t, defaults, { username: 'carol', password: 'wrong' }, { hardware_id: 'carols-laptop' }, HOME), 401, 'INVALID_CREDENTIALS');
  });

  it("from eleven addresses of one /24: they share one network's ten guesses, and nobody else is locked", async () => {
    const dave = await member(t, defaults, 'dave', 'dave-password-1', 60, { hardware_id: 'daves-pc' });
    await attack('dave', elevenNeighbours);
    // Every address of that network is locked for dave after the first ten guesses...
    expectError(await login(t, defaults, { username: 'dave', password: dave.password }, { hardware_id: 'daves-pc' }, { ip: '203.0.113.99' }), 429, 'ACCOUNT_LOCKED');
    // ...which were all that counted on the account: a new address elsewhere signs in.
    expect((await login(t, defaults, { username: 'dave', password: dave.password }, { hardware_id: 'daves-pc' }, { ip: '192.0.2.202' })).statusCode).toBe(200);
  });

  it("IPv6: addresses of one /48 share one network's guesses", async () => {
    const erin = await member(t, defaults, 'erin', 'erin-password-1', 60, { hardware_id: 'erins-pc' });
    const sixty4s = Array.from({ length: 11 }, (_, i) => `2001:db8:77:${i + 1}::5`);
    await attack('erin', sixty4s);
    expectError(await login(t, defaults, { username: 'erin', password: erin.password }, { hardware_id: 'erins-pc' }, { ip: '2001:db8:77:ff::1' }), 429, 'ACCOUNT_LOCKED');
    expect((await login(t, defaults, { username: 'erin', password: erin.password }, { hardware_id: 'erins-pc' }, { ip: '2001:db8:78::1' })).statusCode).toBe(200);
  });
});

describe('DELETE /api/console/applications/{app_id}/users/{user_id}/lock', () => {
  it("lifts the user's locks at every address: password, license code and code guesses", async () => {
    const alice = await member(t, app, 'alice');
    await guessTenTimes('alice');
    // Alice locked on code guesses at activation too; carol is a license-code user.
    const [code] = await createLicenses(t, app.id, 1, 60);
    const carol = (await call(t, app, 'POST', '/sign_up_with_license_code', { code })).json<{ id: string }>();
    for (let i = 0; i < 10; i++) await call(t, app, 'POST', '/activate_license', { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', username: 'alice', password: alice.password }, HOME);
    expectError(await call(t, app, 'POST', '/activate_license', { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', username: 'alice', password: alice.password }, HOME), 429, 'ACCOUNT_LOCKED');

    const res = await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${alice.id}/lock`);
    expect(res.statusCode).toBe(204);
    expect((await login(t, app, { username: 'alice', password: alice.password }, {}, ATTACKER)).statusCode).toBe(200);
    expectError(await call(t, app, 'POST', '/activate_license', { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', username: 'alice', password: alice.password }, HOME), 401, 'LICENSE_INVALID');
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${carol.id}/lock`)).statusCode).toBe(204);
    expect((await login(t, app, { code: code as string }, {}, HOME)).statusCode).toBe(200);
  });

  it("404 USER_NOT_FOUND for an unknown user, another application's user, or another owner's application", async () => {
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
