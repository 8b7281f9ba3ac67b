// Acceptance (issue 16, point 1), on both backends: offline license files from the integration API,
// the console and the admin API (docs/signing.md, Offline license files). The expiry never
// outlives the membership, login's refusals hold (ban, timeout, inactive membership), and the
// device cap holds for files as for logins, under 20 parallel requests too.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pinnedEd25519Keys } from '../../src/signing/ed25519.js';
import { hardwareIdDigest, readLicenseFile, verifyLicenseFile } from '../../src/signing/license-file.js';
import { consoleRequest, createApplication, createLicenses, startTestApp, T0, type TestApp } from '../support/test-app.js';
import { ban, bearer, call, expectError, login, member, signUp, token, type TestApplication } from '../support/integration.js';

const DAY_MS = 24 * 3600 * 1000;
const seconds = (ms: number) => Math.floor(ms / 1000);

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

type App = TestApplication & { credentials: { admin_api_key: string } };

async function publicKeyOf(app: App): Promise<string> {
  return (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().response_signing_public_key as string;
}

async function devicesOf(app: App, userId: string): Promise<string[]> {
  const res = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${userId}`);
  return (res.json().registered_devices as Array<{ hardware_id: string }>).map((d) => d.hardware_id).sort();
}

const consoleIssue = (app: App, userId: string, body: Record<string, unknown>) => consoleRequest(t, 'POST', `/applications/${app.id}/users/${userId}/license_files`, body);

const adminIssue = (app: App, body: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/api/admin/license_files', headers: { authorization: `Bearer ${app.credentials.admin_api_key}` }, payload: body });

/** The file of a 200/201 answer, verified as a client on `hardwareId` would, at the test clock's time. */
async function verified(app: App, res: { statusCode: number; body: string; json(): unknown }, hardwareId: string | null, status = 200) {
  expect(res.statusCode, res.body).toBe(status);
  const { license_file, expires_at } = res.json() as { license_file: string; expires_at: string };
  const claims = verifyLicenseFile(license_file, {
    keys: pinnedEd25519Keys(await publicKeyOf(app), 'key'),
    applicationId: app.id,
    hardwareId,
    now: seconds(t.clock.now()),
  });
  expect(Date.parse(expires_at)).toBe(claims.exp * 1000);
  return claims;
}

describe('POST /api/integration/license_file', () => {
  it('a user with 30 days left gets a file that expires with the membership, bound to the machine', async () => {
    const app = await createApplication(t, { license_file_ttl_minutes: 60 * 24 * 60 });
    const u = await member(t, app, 'alice', undefined, 30 * 24 * 60, { hardware_id: 'HW-1' });
    const tok = await token(t, app, { username: 'alice', password: u.password }, { hardware_id: 'HW-1' });
    const res = await call(t, app, 'POST', '/license_file', { hardware_id: 'HW-1' }, { headers: bearer(tok) });
    // The answer is signed like every integration answer.
    expect(res.headers['x-signature']).toMatch(/^v1=[0-9a-f]{16}:/);
    const claims = await verified(app, res, 'HW-1');
    expect(claims).toMatchObject({
      app: app.id,
      sub: u.id,
      username: 'alice',
      hwid_sha256: hardwareIdDigest(app.id, 'HW-1'),
      membership: { is_lifetime: false, active_until: seconds(T0 + 30 * DAY_MS) },
      iat: seconds(T0),
      exp: seconds(T0 + 30 * DAY_MS),
    });
    expect(readLicenseFile(res.json().license_file).envelope.kid).toBe((await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().response_signing_key_id);
  });

  it('a lifetime user gets a file that expires with the TTL (default 14 days)', async () => {
    const app = await createApplication(t);
    const u = await member(t, app, 'bob', undefined, null, { hardware_id: 'HW-1' });
    const tok = await token(t, app, { username: 'bob', password: u.password }, { hardware_id: 'HW-1' });
    const claims = await verified(app, await call(t, app, 'POST', '/license_file', { hardware_id: 'HW-1' }, { headers: bearer(tok) }), 'HW-1');
    expect(claims.membership).toEqual({ is_lifetime: true, active_until: null });
    expect(claims.exp).toBe(seconds(T0 + 14 * DAY_MS));
  });

  it('a shorter membership than the TTL wins, a longer one is cut to the TTL', async () => {
    const app = await createApplication(t, { device_auth: false, license_file_ttl_minutes: 60 * 24 });
    const long = await member(t, app, 'carol', undefined, 5 * 24 * 60);
    const short = await member(t, app, 'dave', undefined, 90);
    const fileOf = async (username: string, password: string) => verified(app, await call(t, app, 'POST', '/license_file', {}, { headers: bearer(await token(t, app, { username, password })) }), null);
    expect((await fileOf('carol', long.password)).exp).toBe(seconds(T0 + DAY_MS));
    expect((await fileOf('dave', short.password)).exp).toBe(seconds(T0 + 90 * 60_000));
  });

  it('without device authentication the file is bound to no machine', async () => {
    const app = await createApplication(t, { device_auth: false });
    const u = await member(t, app, 'erin');
    const tok = await token(t, app, { username: 'erin', password: u.password });
    const claims = await verified(app, await call(t, app, 'POST', '/license_file', { hardware_id: 'ignored' }, { headers: bearer(tok) }), 'any machine');
    expect(claims.hwid_sha256).toBeNull();
  });

  it('with device authentication a hardware id is required, and the file refuses another machine', async () => {
    const app = await createApplication(t, { default_allowed_devices: 2 });
    const u = await member(t, app, 'frank', undefined, 60, { hardware_id: 'HW-1' });
    const tok = await token(t, app, { username: 'frank', password: u.password }, { hardware_id: 'HW-1' });
    expectError(await call(t, app, 'POST', '/license_file', {}, { headers: bearer(tok) }), 401, 'DEVICE_REQUIRED');
    const res = await call(t, app, 'POST', '/license_file', { hardware_id: 'HW-1' }, { headers: bearer(tok) });
    const keys = pinnedEd25519Keys(await publicKeyOf(app), 'key');
    const on = (hardwareId: string | null) => () => verifyLicenseFile(res.json().license_file, { keys, applicationId: app.id, hardwareId, now: seconds(t.clock.now()) });
    expect(on('HW-1')().hwid_sha256).toBe(hardwareIdDigest(app.id, 'HW-1'));
    expect(on('HW-2')).toThrow(expect.objectContaining({ code: 'OTHER_MACHINE' }));
    expect(on(null)).toThrow(expect.objectContaining({ code: 'OTHER_MACHINE' }));
  });

  it('needs an authenticated user', async () => {
    const app = await createApplication(t, { device_auth: false });
    expectError(await call(t, app, 'POST', '/license_file', {}), 401, 'LOGIN_REQUIRED');
    expectError(await call(t, app, 'POST', '/license_file', {}, { headers: bearer('gh_st_forged') }), 401, 'INVALID_CREDENTIALS');
  });

  it('a banned, timed-out or inactive user gets no file', async () => {
    const app = await createApplication(t, { device_auth: true, legacy_auth: true, ban_propagation: false, default_allowed_devices: 5 });
    // Legacy header credentials, checked (and throttled) as login checks them: a ban or a timeout
    // also ends the user's sessions, so a token would only say SESSION_EXPIRED.
    const HW = { hardware_id: 'HW-1' };
    const banned = await member(t, app, 'grace', undefined, 600, HW);
    const bannedToken = await token(t, app, { username: 'grace', password: banned.password }, HW);
    await ban(t, app, 'user', banned.id);
    expectError(await call(t, app, 'POST', '/license_file', HW, { headers: { 'x-api-username': 'grace', 'x-api-password': banned.password, 'x-hardware-id': 'HW-1' } }), 403, 'BANNED');
    expectError(await call(t, app, 'POST', '/license_file', HW, { headers: bearer(bannedToken) }), 401, 'SESSION_EXPIRED');

    const timedOut = await member(t, app, 'heidi', undefined, 600, HW);
    const until = new Date(T0 + DAY_MS).toISOString();
    expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${timedOut.id}/timeout`, { until })).statusCode).toBe(200);
    expectError(await call(t, app, 'POST', '/license_file', HW, { headers: { 'x-api-username': 'heidi', 'x-api-password': timedOut.password, 'x-hardware-id': 'HW-1' } }), 403, 'TIMED_OUT');

    await signUp(t, app, 'ivan', 'password123', HW);
    expectError(await call(t, app, 'POST', '/license_file', HW, { headers: { 'x-api-username': 'ivan', 'x-api-password': 'password123', 'x-hardware-id': 'HW-1' } }), 403, 'MEMBERSHIP_INACTIVE');
    expectError(await call(t, app, 'POST', '/license_file', HW, { headers: { 'x-api-username': 'ivan', 'x-api-password': 'wrong password', 'x-hardware-id': 'HW-1' } }), 401, 'INVALID_CREDENTIALS');
  });

  it('a banned machine gets no file, even on a valid session of another machine', async () => {
    const app = await createApplication(t, { default_allowed_devices: 3, ban_propagation: false });
    const u = await member(t, app, 'judy', undefined, 60, { hardware_id: 'HW-1' });
    const tok = await token(t, app, { username: 'judy', password: u.password }, { hardware_id: 'HW-1' });
    await ban(t, app, 'hardware_id', 'HW-BANNED');
    expectError(await call(t, app, 'POST', '/license_file', { hardware_id: 'HW-BANNED' }, { headers: bearer(tok) }), 403, 'BANNED');
    expect(await devicesOf(app, u.id)).toEqual(['HW-1']);
  });

  it('the device cap holds for files as for logins', async () => {
    const app = await createApplication(t, { default_allowed_devices: 2 });
    const u = await member(t, app, 'ken', undefined, 60, { hardware_id: 'HW-1' });
    const tok = await token(t, app, { username: 'ken', password: u.password }, { hardware_id: 'HW-1' });
    // A file for a second machine registers it: the cap of 2 is then full, for logins too.
    await verified(app, await call(t, app, 'POST', '/license_file', { hardware_id: 'HW-2' }, { headers: bearer(tok) }), 'HW-2');
    expect(await devicesOf(app, u.id)).toEqual(['HW-1', 'HW-2']);
    expectError(await call(t, app, 'POST', '/license_file', { hardware_id: 'HW-3' }, { headers: bearer(tok) }), 401, 'DEVICE_LIMIT_REACHED');
    expectError(await login(t, app, { username: 'ken', password: u.password }, { hardware_id: 'HW-3' }), 401, 'DEVICE_LIMIT_REACHED');
    // A registered machine gets a file again, and takes no new slot.
    await verified(app, await call(t, app, 'POST', '/license_file', { hardware_id: 'HW-2' }, { headers: bearer(tok) }), 'HW-2');
    expect(await devicesOf(app, u.id)).toEqual(['HW-1', 'HW-2']);
  });

  it('20 parallel requests for 20 machines register no more than the cap', async () => {
    const app = await createApplication(t, { default_allowed_devices: 3 });
    const u = await member(t, app, 'liz', undefined, 60, { hardware_id: 'HW-0' });
    const tok = await token(t, app, { username: 'liz', password: u.password }, { hardware_id: 'HW-0' });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(t, app, 'POST', '/license_file', { hardware_id: `HW-P${i}` }, { headers: bearer(tok) })));
    const statuses = answers.map((r) => (r.statusCode === 200 ? 'ok' : r.json<{ error_code: string }>().error_code));
    expect(statuses.filter((s) => s === 'ok')).toHaveLength(2);
    expect(statuses.filter((s) => s === 'DEVICE_LIMIT_REACHED')).toHaveLength(18);
    expect(await devicesOf(app, u.id)).toHaveLength(3);
  });
});

describe('owner issuance for air-gapped machines', () => {
  it('the console issues a file for a user and a hardware id, registering the machine', async () => {
    const app = await createApplication(t, { default_allowed_devices: 2, license_file_ttl_minutes: 60 * 24 * 60 });
    const u = await member(t, app, 'mallory', undefined, 30 * 24 * 60, { hardware_id: 'HW-1' });
    const claims = await verified(app, await consoleIssue(app, u.id, { hardware_id: 'HW-AIR' }), 'HW-AIR', 201);
    expect(claims).toMatchObject({ sub: u.id, username: 'mallory', hwid_sha256: hardwareIdDigest(app.id, 'HW-AIR'), exp: seconds(T0 + 30 * DAY_MS) });
    expect(await devicesOf(app, u.id)).toEqual(['HW-1', 'HW-AIR']);
    // The cap is full now: another machine is refused, by file or by login.
    expectError(await consoleIssue(app, u.id, { hardware_id: 'HW-3' }), 401, 'DEVICE_LIMIT_REACHED');
    expectError(await login(t, app, { username: 'mallory', password: u.password }, { hardware_id: 'HW-3' }), 401, 'DEVICE_LIMIT_REACHED');
  });

  it('ttl_minutes overrides the setting within its range', async () => {
    const app = await createApplication(t, { device_auth: false });
    const u = await member(t, app, 'nina', undefined, null);
    const claims = await verified(app, await consoleIssue(app, u.id, { hardware_id: 'HW-1', ttl_minutes: 120 }), null, 201);
    expect(claims.exp).toBe(seconds(T0 + 120 * 60_000));
    for (const ttl of [59, 525_601, 0]) {
      const refused = await consoleIssue(app, u.id, { hardware_id: 'HW-1', ttl_minutes: ttl });
      expectError(refused, 422, 'VALIDATION_FAILED');
      expect(refused.json<{ errors: Array<{ field: string }> }>().errors[0]!.field).toBe('ttl_minutes');
    }
  });

  it('the console refuses a banned, timed-out or inactive user, a banned machine, and users of other applications', async () => {
    const app = await createApplication(t, { default_allowed_devices: 5 });
    const banned = await member(t, app, 'oscar', undefined, 60, { hardware_id: 'HW-1' });
    await ban(t, app, 'user', banned.id);
    expectError(await consoleIssue(app, banned.id, { hardware_id: 'HW-1' }), 403, 'BANNED');

    const timedOut = await member(t, app, 'peggy', undefined, 60, { hardware_id: 'HW-1' });
    await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${timedOut.id}/timeout`, { until: new Date(T0 + DAY_MS).toISOString() });
    expectError(await consoleIssue(app, timedOut.id, { hardware_id: 'HW-1' }), 403, 'TIMED_OUT');

    const inactive = await signUp(t, app, 'quentin', 'password123', { hardware_id: 'HW-1' });
    expectError(await consoleIssue(app, inactive.id, { hardware_id: 'HW-1' }), 403, 'MEMBERSHIP_INACTIVE');

    const expired = await member(t, app, 'rupert', undefined, 60, { hardware_id: 'HW-1' });
    t.clock.advance(61 * 60_000);
    expectError(await consoleIssue(app, expired.id, { hardware_id: 'HW-1' }), 403, 'MEMBERSHIP_INACTIVE');

    const fine = await member(t, app, 'sybil', undefined, null, { hardware_id: 'HW-1' });
    await ban(t, app, 'hardware_id', 'HW-BANNED');
    expectError(await consoleIssue(app, fine.id, { hardware_id: 'HW-BANNED' }), 403, 'BANNED');
    // The owner proves nothing about the machine: its ban does not spread to the user.
    await verified(app, await consoleIssue(app, fine.id, { hardware_id: 'HW-1' }), 'HW-1', 201);

    const other = await createApplication(t, { device_auth: false });
    const stranger = await member(t, other, 'trent', undefined, null);
    expectError(await consoleIssue(app, stranger.id, { hardware_id: 'HW-1' }), 404, 'USER_NOT_FOUND');
    expectError(await consoleIssue(app, '00000000-0000-4000-8000-000000000000', { hardware_id: 'HW-1' }), 404, 'USER_NOT_FOUND');
  });

  it('20 parallel console issuances for 20 machines register no more than the cap', async () => {
    const app = await createApplication(t, { default_allowed_devices: 4 });
    const u = await member(t, app, 'ursula', undefined, 60, { hardware_id: 'HW-0' });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => consoleIssue(app, u.id, { hardware_id: `HW-C${i}` })));
    const statuses = answers.map((r) => (r.statusCode === 201 ? 'ok' : r.json<{ error_code: string }>().error_code));
    expect(statuses.filter((s) => s === 'ok')).toHaveLength(3);
    expect(statuses.filter((s) => s === 'DEVICE_LIMIT_REACHED')).toHaveLength(17);
    expect(await devicesOf(app, u.id)).toHaveLength(4);
  });

  it('the admin API issues by username or license code', async () => {
    const app = await createApplication(t, { device_auth: false, license_file_ttl_minutes: 24 * 60 });
    const byName = await member(t, app, 'victor', undefined, null);
    const claims = await verified(app, await adminIssue(app, { username_or_license_code: 'victor', hardware_id: 'HW-1' }), null, 201);
    expect(claims).toMatchObject({ sub: byName.id, exp: seconds(T0 + 24 * 60 * 60_000) });
    const [code] = await createLicenses(t, app.id, 1, 600);
    const signedUp = await call(t, app, 'POST', '/sign_up_with_license_code', { code });
    const byCode = await verified(app, await adminIssue(app, { username_or_license_code: code, hardware_id: 'HW-1', ttl_minutes: 24 * 60 }), null, 201);
    expect(byCode.sub).toBe(signedUp.json().id);
    expect(byCode.exp).toBe(seconds(T0 + 600 * 60_000));
    expectError(await adminIssue(app, { username_or_license_code: 'nobody', hardware_id: 'HW-1' }), 404, 'USER_NOT_FOUND');
    expectError(await adminIssue(app, { username_or_license_code: 'victor' }), 422, 'VALIDATION_FAILED');
    const wrongKey = await t.inject({ method: 'POST', url: '/api/admin/license_files', headers: { authorization: 'Bearer gh_adm_wrong' }, payload: {} });
    expectError(wrongKey, 401, 'INVALID_ADMIN_API_KEY');
  });

  it("a file for one application does not verify as another application's", async () => {
    const app = await createApplication(t, { device_auth: false });
    const other = await createApplication(t, { device_auth: false });
    await member(t, app, 'walter', undefined, null);
    const res = await adminIssue(app, { username_or_license_code: 'walter', hardware_id: 'HW-1' });
    // The other application's admin key does not reach this application's user.
    expectError(await adminIssue(other, { username_or_license_code: 'walter', hardware_id: 'HW-1' }), 404, 'USER_NOT_FOUND');
    const [appKey, otherKey] = [await publicKeyOf(app), await publicKeyOf(other)];
    const check = (publicKey: string, applicationId: string) =>
      verifyLicenseFile(res.json().license_file, { keys: pinnedEd25519Keys(publicKey, 'key'), applicationId, hardwareId: null, now: seconds(t.clock.now()) });
    expect(() => check(otherKey, app.id)).toThrow(expect.objectContaining({ code: 'SIGNATURE_INVALID' }));
    expect(() => check(appKey, other.id)).toThrow(expect.objectContaining({ code: 'OTHER_APPLICATION' }));
    expect(check(appKey, app.id).app).toBe(app.id);
  });
});

describe('license_file_ttl_minutes', () => {
  it('defaults to 14 days and takes 60 to 525600', async () => {
    const app = await createApplication(t);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().license_file_ttl_minutes).toBe(20_160);
    expectError(await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { license_file_ttl_minutes: 59 }), 422, 'VALIDATION_FAILED');
    expectError(await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { license_file_ttl_minutes: 525_601 }), 422, 'VALIDATION_FAILED');
    const patched = await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { license_file_ttl_minutes: 60 });
    expect(patched.json().license_file_ttl_minutes).toBe(60);
  });
});
