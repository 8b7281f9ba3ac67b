import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, consoleRequest, createApplication, createLicenses, startTestApp } from '../support/test-app.js';
import { ISO, MISSING_ID, UUID, loginWithCode, otherOwnerToken, signUp, signUpWithCode } from './console-helpers.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { ban_propagation: false });
});
afterEach(async () => {
  await t.close();
});

const ban = (body: object) => consoleRequest(t, 'POST', `/applications/${app.id}/bans`, body);
const list = () => consoleRequest(t, 'GET', `/applications/${app.id}/bans`);
const signUpRaw = (username: string, hardwareId: string) =>
  t.inject({
    method: 'POST',
    url: '/api/integration/sign_up',
    headers: app.headers,
    payload: { username, password: 'user-password-1', hardware_id: hardwareId },
  });

describe('bans', () => {
  it('bans a hardware id: the ban is shown and refuses sign-up from that device', async () => {
    const res = await ban({ type: 'hardware_id', value: 'hw-bad', reason: 'cheating' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.stringMatching(UUID),
      type: 'hardware_id',
      value: 'hw-bad',
      reason: 'cheating',
      created_at: expect.stringMatching(ISO),
      propagated_from: null,
      expires_at: null,
    });
    const refused = await signUpRaw('mallory', 'hw-bad');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error_code).toBe('BANNED');
    expect((await signUpRaw('alice', 'hw-good')).statusCode).toBe(201);
  });

  it('bans an IP address in canonical form, refusing requests from it', async () => {
    const res = await ban({ type: 'ip', value: '127.0.0.1' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ type: 'ip', value: '127.0.0.1', reason: null });
    // light-my-request comes from 127.0.0.1.
    expect((await signUpRaw('alice', 'hw-1')).statusCode).toBe(403);
    const v6 = await ban({ type: 'ip', value: '2001:DB8:0:0::1' });
    expect(v6.json().value).toBe('2001:db8::1');
  });

  it('bans a license by its code and shows the code', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    const res = await ban({ type: 'license', value: code!.toLowerCase() });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ type: 'license', value: code });
    const license = (await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${code}`)).json();
    expect(license.banned).toBe(true);
    const refused = await t.inject({
      method: 'POST',
      url: '/api/integration/sign_up_with_license_code',
      headers: app.headers,
      payload: { code, hardware_id: 'hw-1' },
    });
    expect(refused.statusCode).toBe(403);
    expect((await list()).json()).toEqual([expect.objectContaining({ type: 'license', value: code })]);
  });

  it('bans a user by id, ending their sessions and refusing login', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    const userId = await signUpWithCode(t, app.headers, code!);
    const token = (await loginWithCode(t, app.headers, code!)).json().session_token as string;
    const res = await ban({ type: 'user', value: userId, reason: 'abuse' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ type: 'user', value: userId, reason: 'abuse' });
    const ctx = await t.inject({ method: 'GET', url: '/api/integration/app_context', headers: { ...app.headers, authorization: `Bearer ${token}` } });
    expect([401, 403]).toContain(ctx.statusCode);
    expect((await loginWithCode(t, app.headers, code!)).statusCode).toBe(403);
  });

  it('answers the existing ban when the same identifier is banned twice', async () => {
    const first = (await ban({ type: 'hardware_id', value: 'hw-x' })).json();
    const second = await ban({ type: 'hardware_id', value: 'hw-x', reason: 'again' });
    expect(second.statusCode).toBe(201);
    expect(second.json().id).toBe(first.id);
    expect((await list()).json()).toHaveLength(1);
  });

  it('lists newest first and deletes bans, lifting them', async () => {
    const older = (await ban({ type: 'hardware_id', value: 'hw-1' })).json();
    t.clock.advance(1000);
    const newer = (await ban({ type: 'hardware_id', value: 'hw-2' })).json();
    const res = await list();
    expect(res.statusCode).toBe(200);
    expect(res.json().map((b: { id: string }) => b.id)).toEqual([newer.id, older.id]);

    const del = await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${older.id}`);
    expect(del.statusCode).toBe(204);
    expect((await list()).json().map((b: { id: string }) => b.id)).toEqual([newer.id]);
    expect((await signUpRaw('alice', 'hw-1')).statusCode).toBe(201);

    const again = await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${older.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error_code).toBe('BAN_NOT_FOUND');
    const malformed = await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/xyz`);
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().errors[0].field).toBe('ban_id');
  });

  it('unbanning a license clears its banned flag', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    const b = (await ban({ type: 'license', value: code })).json();
    await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${b.id}`);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${code}`)).json().banned).toBe(false);
  });

  it.each([
    ['type', { type: 'email', value: 'x@example.com' }],
    ['value', { type: 'ip', value: 'not-an-ip' }],
    ['value', { type: 'ip', value: '300.1.1.1' }],
    ['value', { type: 'hardware_id', value: '' }],
    ['value', { type: 'hardware_id', value: '   ' }],
    ['value', { type: 'hardware_id', value: 'h'.repeat(257) }],
    ['reason', { type: 'hardware_id', value: 'h', reason: 'r'.repeat(501) }],
    ['value', { type: 'hardware_id' }],
    ['scope', { type: 'hardware_id', value: 'h', scope: 'all' }],
  ])('refuses bad input with 422 naming %s', async (field, body) => {
    const res = await ban(body);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe(field);
    expect((await list()).json()).toEqual([]);
  });

  it('answers 404 for an unknown license or user', async () => {
    const license = await ban({ type: 'license', value: 'ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ' });
    expect(license.statusCode).toBe(404);
    expect(license.json().error_code).toBe('LICENSE_NOT_FOUND');
    const user = await ban({ type: 'user', value: MISSING_ID });
    expect(user.statusCode).toBe(404);
    expect(user.json().error_code).toBe('USER_NOT_FOUND');
    expect((await ban({ type: 'user', value: 'alice' })).json().error_code).toBe('USER_NOT_FOUND');
    const other = await createApplication(t, { name: 'Other' });
    const stranger = await signUp(t, other.headers, 'stranger');
    expect((await ban({ type: 'user', value: stranger })).statusCode).toBe(404);
  });

  it('answers 404 for another owner’s application', async () => {
    const theirs = await createApplication(t, { name: 'Theirs' }, await otherOwnerToken(t));
    const theirBan = await t.inject({
      method: 'POST',
      url: `/api/console/applications/${theirs.id}/bans`,
      headers: { authorization: `Bearer ${await otherOwnerToken(t, 'third@example.com')}` },
      payload: { type: 'ip', value: '10.0.0.1' },
    });
    expect(theirBan.statusCode).toBe(404);
    const del = await consoleRequest(t, 'DELETE', `/applications/${theirs.id}/bans/${MISSING_ID}`);
    expect(del.statusCode).toBe(404);
    expect(del.json().error_code).toBe('APPLICATION_NOT_FOUND');
  });
});
