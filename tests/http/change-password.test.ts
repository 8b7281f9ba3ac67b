// Password change (end-user-features.md, docs/api.md "POST /change_password"): by the user, with the old
// password checked and throttled as at login, and by the owner; both end every session.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, bearer, call, expectError, login, member, token, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp({ limits: { lockoutThreshold: 5, ipFailureLimit: 1000, accountFailureLimit: 1000 } });
  app = await createApplication(t, { device_auth: false, default_allowed_sessions: 5 });
});
afterEach(() => t.close());

const change = (on: TestApplication, body: Record<string, unknown>, ip?: string) => call(t, on, 'POST', '/change_password', body, ip ? { ip } : {});
const contextAs = (tok: string) => call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) });

describe('POST /api/integration/change_password', () => {
  it('204; every session ends, the old password stops working and the new one logs in', async () => {
    const alice = await member(t, app, 'alice');
    const sessions = [await token(t, app, { username: 'alice', password: alice.password }), await token(t, app, { username: 'alice', password: alice.password })];
    const res = await change(app, { username: 'alice', password: alice.password, new_password: 'a brand new secret' });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    for (const s of sessions) expectError(await contextAs(s), 401, 'SESSION_EXPIRED');
    expectError(await login(t, app, { username: 'alice', password: alice.password }), 401, 'INVALID_CREDENTIALS');
    expect((await login(t, app, { username: 'ALICE', password: 'a brand new secret' })).statusCode).toBe(200);
  });

  it('401 INVALID_CREDENTIALS for a wrong old password or an unknown user, with the same body', async () => {
    await member(t, app, 'alice');
    const wrong = await change(app, { username: 'alice', password: 'not the password', new_password: 'a brand new secret' });
    const unknown = await change(app, { username: 'nobody', password: 'not the password', new_password: 'a brand new secret' });
    expectError(wrong, 401, 'INVALID_CREDENTIALS');
    expect(unknown.body).toBe(wrong.body);
  });

  it('422 when the new password breaks the policy; the old one still works', async () => {
    const strict = await createApplication(t, { device_auth: false, password_min_length: 12 });
    const bob = await member(t, strict, 'bob', 'bobs long password');
    const res = await change(strict, { username: 'bob', password: bob.password, new_password: 'short pw' });
    const body = expectError(res, 422, 'VALIDATION_FAILED') as unknown as { errors: Array<{ field: string }> };
    expect(body.errors[0]?.field).toBe('new_password');
    expect((await login(t, strict, { username: 'bob', password: bob.password })).statusCode).toBe(200);
    expectError(await change(strict, { username: 'bob', password: bob.password }), 422, 'VALIDATION_FAILED');
    expectError(await change(strict, { username: 'bob', password: bob.password, new_password: 'x'.repeat(257) }), 422, 'VALIDATION_FAILED');
  });

  it('422 NOT_A_PASSWORD_USER for a license-code user', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    const user = (await call(t, app, 'POST', '/sign_up_with_license_code', { code })).json<{ username: string }>();
    expectError(await change(app, { username: user.username, password: code, new_password: 'a brand new secret' }), 422, 'NOT_A_PASSWORD_USER');
    // The code still logs in.
    expect((await login(t, app, { code: code as string })).statusCode).toBe(200);
  });

  it('is throttled as a login, on the same counter: guesses here lock the login too', async () => {
    const alice = await member(t, app, 'alice');
    const attacker = '203.0.113.9';
    for (let i = 0; i < 5; i++) expectError(await change(app, { username: 'alice', password: `guess ${i}`, new_password: 'a brand new secret' }, attacker), 401, 'INVALID_CREDENTIALS');
    const locked = await change(app, { username: 'alice', password: alice.password, new_password: 'a brand new secret' }, attacker);
    expectError(locked, 429, 'ACCOUNT_LOCKED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await login(t, app, { username: 'alice', password: alice.password }, {}, { ip: attacker }), 429, 'ACCOUNT_LOCKED');
    // Nothing changed.
    expect((await login(t, app, { username: 'alice', password: alice.password })).statusCode).toBe(200);
  });

  it('403 for a timed-out or banned user; nothing changes', async () => {
    const bob = await member(t, app, 'bob', 'bobs password', null);
    await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${bob.id}/timeout`, { until: '2026-06-09T00:00:00.000Z' });
    expectError(await change(app, { username: 'bob', password: bob.password, new_password: 'a brand new secret' }), 403, 'TIMED_OUT');
    t.clock.set(Date.parse('2026-06-09T00:00:01.000Z'));
    // The timeout over, the old password is still the one.
    expect((await login(t, app, { username: 'bob', password: bob.password })).statusCode).toBe(200);
    // Last: with ban propagation on, the refusal bans the address it came from too.
    const alice = await member(t, app, 'alice', 'alices password', null);
    const hashBefore = (await t.store.findUserById(app.id, alice.id))?.passwordHash;
    await ban(t, app, 'user', alice.id);
    expectError(await change(app, { username: 'alice', password: alice.password, new_password: 'a brand new secret' }), 403, 'BANNED');
    expect((await t.store.findUserById(app.id, alice.id))?.passwordHash).toBe(hashBefore);
  });

  it("a lapsed membership may still change its password; another application's account is unknown", async () => {
    const carol = await member(t, app, 'carol', 'carols password', 1);
    t.clock.advance(2 * 60_000);
    expect((await change(app, { username: 'carol', password: carol.password, new_password: 'carols new password' })).statusCode).toBe(204);
    const other = await createApplication(t, { device_auth: false });
    expectError(await change(other, { username: 'carol', password: 'carols new password', new_password: 'whatever it is' }), 401, 'INVALID_CREDENTIALS');
  });
});

describe('PUT /api/console/applications/{app_id}/users/{user_id}/password', () => {
  it('204; sessions end, the new password logs in and the old one does not', async () => {
    const alice = await member(t, app, 'alice');
    const session = await token(t, app, { username: 'alice', password: alice.password });
    const res = await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${alice.id}/password`, { password: 'set by the owner' });
    expect(res.statusCode).toBe(204);
    expectError(await contextAs(session), 401, 'SESSION_EXPIRED');
    expectError(await login(t, app, { username: 'alice', password: alice.password }), 401, 'INVALID_CREDENTIALS');
    expect((await login(t, app, { username: 'alice', password: 'set by the owner' })).statusCode).toBe(200);
  });

  it("422 for a password the policy refuses and for a license-code user; 404 for another application's user", async () => {
    const alice = await member(t, app, 'alice');
    const body = expectError(await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${alice.id}/password`, { password: 'short' }), 422, 'VALIDATION_FAILED') as unknown as {
      errors: Array<{ field: string }>;
    };
    expect(body.errors[0]?.field).toBe('password');
    const [code] = await createLicenses(t, app.id, 1, 60);
    const holder = (await call(t, app, 'POST', '/sign_up_with_license_code', { code })).json<{ id: string }>();
    expectError(await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${holder.id}/password`, { password: 'a fine password' }), 422, 'NOT_A_PASSWORD_USER');
    const other = await createApplication(t, { device_auth: false });
    expectError(await consoleRequest(t, 'PUT', `/applications/${other.id}/users/${alice.id}/password`, { password: 'a fine password' }), 404, 'USER_NOT_FOUND');
    expectError(await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${alice.id}/password`, {}), 422, 'VALIDATION_FAILED');
    expect((await login(t, app, { username: 'alice', password: alice.password })).statusCode).toBe(200);
  });
});
