import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { T0, type TestApp, consoleRequest, createApplication, createLicenses, startTestApp } from '../support/test-app.js';
import { ISO, MISSING_ID, loginWithCode, otherOwnerToken, signUp, signUpWithCode } from './console-helpers.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { default_allowed_devices: 2, default_allowed_sessions: 2 });
});
afterEach(async () => {
  await t.close();
});

const MINUTE = 60_000;
const users = (query = '') => consoleRequest(t, 'GET', `/applications/${app.id}/users${query}`);
const contextWith = (token: string) => t.inject({ method: 'GET', url: '/api/integration/app_context', headers: { ...app.headers, authorization: `Bearer ${token}` } });

/** A license-code user with 60 minutes, logged in once; returns their id, code and session token. */
async function activeUser(hardwareId = 'hw-1') {
  const [code] = await createLicenses(t, app.id, 1, 60);
  const id = await signUpWithCode(t, app.headers, code!, hardwareId);
  const login = await loginWithCode(t, app.headers, code!, hardwareId);
  expect(login.statusCode).toBe(200);
  return { id, code: code!, token: login.json().session_token as string };
}

describe('user search and lookup', () => {
  it('lists users in the admin view, searches by username and pages', async () => {
    const alice = await signUp(t, app.headers, 'alice', 'hw-a');
    t.clock.advance(1000);
    const bob = await signUp(t, app.headers, 'Bobby', 'hw-b');
    t.clock.advance(1000);
    await signUp(t, app.headers, 'carol', 'hw-c');

    const all = await users();
    expect(all.statusCode).toBe(200);
    expect(all.json()).toHaveLength(3);
    expect(all.json()[0]).toEqual({
      application_id: app.id,
      id: alice,
      credential_type: 'username_password',
      username: 'alice',
      allowed_number_of_devices: 2,
      allowed_number_of_simultaneous_sessions: 2,
      caps_source: { devices: 'application', sessions: 'application' },
      registered_devices: [
        {
          id: expect.any(String),
          hardware_id: 'hw-a',
          registered_at: expect.stringMatching(ISO),
          name: null,
          platform: null,
          app_version: null,
          first_seen_at: expect.stringMatching(ISO),
          last_seen_at: expect.stringMatching(ISO),
          last_ip: '127.0.0.1',
        },
      ],
      membership: {
        application_id: app.id,
        user_id: alice,
        is_active: false,
        is_lifetime: false,
        active_until: null,
        plan: null,
        entitlements: [],
        in_grace: false,
        grace_ends_at: null,
        adjustments: [],
      },
      timed_out_until: null,
      timeout_reason: null,
      last_ip: expect.any(String),
      created_at: new Date(T0).toISOString(),
    });

    const search = await users('?query=BOB');
    expect(search.json().map((u: { id: string }) => u.id)).toEqual([bob]);
    const page = await users('?limit=1&offset=1');
    expect(page.json().map((u: { id: string }) => u.id)).toEqual([bob]);
  });

  it('finds the user who redeemed a license when the query is a license code', async () => {
    await signUp(t, app.headers, 'someone', 'hw-s');
    const { id, code } = await activeUser();
    const res = await users(`?query=${encodeURIComponent(code.toLowerCase())}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(1);
    expect(res.json()[0]).toMatchObject({ id, credential_type: 'license_code' });
    expect(res.json()[0].membership.adjustments).toEqual([expect.objectContaining({ type: 'license', minutes: 60 })]);
    const [unused] = await createLicenses(t, app.id, 1, 60);
    expect((await users(`?query=${unused}`)).json()).toEqual([]);
  });

  it.each([
    ['limit', '?limit=0'],
    ['limit', '?limit=501'],
    ['limit', '?limit=ten'],
    ['offset', '?offset=-1'],
    ['sort', '?sort=name'],
  ])('refuses a bad query string with 422 naming %s', async (field, query) => {
    const res = await users(query);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe(field);
  });

  it('gets one user, and answers 404 for unknown users and users of another application', async () => {
    const { id } = await activeUser();
    const res = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, membership: { is_active: true, is_lifetime: false } });

    const missing = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${MISSING_ID}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error_code).toBe('USER_NOT_FOUND');
    const other = await createApplication(t, { name: 'Other' });
    expect((await consoleRequest(t, 'GET', `/applications/${other.id}/users/${id}`)).statusCode).toBe(404);
    const malformed = await consoleRequest(t, 'GET', `/applications/${app.id}/users/nope`);
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().errors[0].field).toBe('user_id');
  });

  it('answers 404 for another owner’s application', async () => {
    const theirs = await createApplication(t, { name: 'Theirs' }, await otherOwnerToken(t));
    const res = await consoleRequest(t, 'GET', `/applications/${theirs.id}/users/${MISSING_ID}`);
    expect(res.json().error_code).toBe('APPLICATION_NOT_FOUND');
  });
});

describe('user limits', () => {
  it('patches the device and session caps', async () => {
    const id = await signUp(t, app.headers, 'alice');
    const res = await consoleRequest(t, 'PATCH', `/applications/${app.id}/users/${id}`, { allowed_number_of_devices: 5 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ allowed_number_of_devices: 5, allowed_number_of_simultaneous_sessions: 2 });
    const both = await consoleRequest(t, 'PATCH', `/applications/${app.id}/users/${id}`, {
      allowed_number_of_devices: 0,
      allowed_number_of_simultaneous_sessions: 7,
    });
    expect(both.json()).toMatchObject({ allowed_number_of_devices: 0, allowed_number_of_simultaneous_sessions: 7 });
  });

  it.each([
    ['allowed_number_of_devices', { allowed_number_of_devices: -1 }],
    ['allowed_number_of_simultaneous_sessions', { allowed_number_of_simultaneous_sessions: 0 }],
    ['allowed_number_of_devices', { allowed_number_of_devices: '3' }],
    ['nickname', { nickname: 'x' }],
  ])('refuses bad limits with 422 naming %s', async (field, payload) => {
    const id = await signUp(t, app.headers, 'alice');
    const res = await consoleRequest(t, 'PATCH', `/applications/${app.id}/users/${id}`, payload);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe(field);
  });

  it('answers 404 for an unknown user', async () => {
    const res = await consoleRequest(t, 'PATCH', `/applications/${app.id}/users/${MISSING_ID}`, { allowed_number_of_devices: 1 });
    expect(res.statusCode).toBe(404);
  });
});

describe('timeouts', () => {
  it('sets a timeout (ending sessions and refusing login), then lifts it', async () => {
    const { id, code, token } = await activeUser();
    const until = new Date(T0 + 30 * MINUTE).toISOString();
    const set = await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${id}/timeout`, { until, reason: 'spam' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ timed_out_until: until, reason: 'spam' });

    expect((await contextWith(token)).statusCode).toBe(401);
    const refused = await loginWithCode(t, app.headers, code);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error_code: 'TIMED_OUT', timed_out_until: until, reason: 'spam' });
    const shown = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${id}`);
    expect(shown.json()).toMatchObject({ timed_out_until: until, timeout_reason: 'spam' });

    const lift = await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${id}/timeout`);
    expect(lift.statusCode).toBe(204);
    expect((await loginWithCode(t, app.headers, code)).statusCode).toBe(200);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/users/${id}`)).json().timed_out_until).toBeNull();
  });

  it('takes a timeout without a reason', async () => {
    const id = await signUp(t, app.headers, 'alice');
    const until = new Date(T0 + MINUTE).toISOString();
    const res = await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${id}/timeout`, { until });
    expect(res.json()).toEqual({ timed_out_until: until, reason: null });
  });

  it.each([
    ['until', { until: new Date(T0 - MINUTE).toISOString() }],
    ['until', { until: 'tomorrow' }],
    ['until', {}],
    ['reason', { until: new Date(T0 + MINUTE).toISOString(), reason: 'r'.repeat(501) }],
  ])('refuses a bad timeout with 422 naming %s', async (field, payload) => {
    const id = await signUp(t, app.headers, 'alice');
    const res = await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${id}/timeout`, payload);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe(field);
  });

  it('answers 404 for an unknown user on set and lift', async () => {
    const until = new Date(T0 + MINUTE).toISOString();
    expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${MISSING_ID}/timeout`, { until })).statusCode).toBe(404);
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${MISSING_ID}/timeout`)).statusCode).toBe(404);
  });
});

describe('devices and sessions', () => {
  it('unregisters a device and ends its sessions', async () => {
    const { id, token } = await activeUser('hw-1');
    const user = (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${id}`)).json();
    const deviceId = user.registered_devices[0].id as string;
    const res = await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${id}/devices/${deviceId}`);
    expect(res.statusCode).toBe(204);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/users/${id}`)).json().registered_devices).toEqual([]);
    expect((await contextWith(token)).statusCode).toBe(401);

    const again = await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${id}/devices/${deviceId}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error_code).toBe('DEVICE_NOT_FOUND');
    const noUser = await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${MISSING_ID}/devices/${deviceId}`);
    expect(noUser.json().error_code).toBe('USER_NOT_FOUND');
  });

  it('revokes every session of a user', async () => {
    const { id, code, token } = await activeUser('hw-1');
    const second = (await loginWithCode(t, app.headers, code, 'hw-2')).json().session_token as string;
    expect((await contextWith(token)).statusCode).toBe(200);
    expect((await contextWith(second)).statusCode).toBe(200);

    const res = await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${id}/sessions`);
    expect(res.statusCode).toBe(204);
    for (const tok of [token, second]) {
      const ctx = await contextWith(tok);
      expect(ctx.statusCode).toBe(401);
      expect(ctx.json().error_code).toBe('SESSION_EXPIRED');
    }
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${MISSING_ID}/sessions`)).statusCode).toBe(404);
  });
});

describe('bulk adjustments', () => {
  it('adds minutes to the listed users of the application and counts them', async () => {
    const alice = await signUp(t, app.headers, 'alice', 'hw-a');
    const bob = await signUp(t, app.headers, 'bob', 'hw-b');
    const other = await createApplication(t, { name: 'Other' });
    const stranger = await signUp(t, other.headers, 'stranger', 'hw-x');

    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/adjustments`, {
      user_ids: [alice, bob, stranger, MISSING_ID],
      minutes: 90,
      reason: 'outage',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ adjusted: 2 });

    const shown = (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${alice}`)).json();
    expect(shown.membership).toMatchObject({ is_active: true, active_until: new Date(T0 + 90 * MINUTE).toISOString() });
    expect(shown.membership.adjustments).toEqual([expect.objectContaining({ type: 'bulk', minutes: 90, grants_lifetime_access: false, revokes_lifetime_access: false, reason: 'outage' })]);
    const strangerShown = (await consoleRequest(t, 'GET', `/applications/${other.id}/users/${stranger}`)).json();
    expect(strangerShown.membership.adjustments).toEqual([]);
  });

  it('grants and revokes lifetime, and removes minutes', async () => {
    const alice = await signUp(t, app.headers, 'alice');
    const post = (body: object) => consoleRequest(t, 'POST', `/applications/${app.id}/adjustments`, { user_ids: [alice], ...body });
    expect((await post({ grant_lifetime: true })).json()).toEqual({ adjusted: 1 });
    let m = (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${alice}`)).json().membership;
    expect(m).toMatchObject({ is_lifetime: true, is_active: true, active_until: null });
    // Adjustments at the same instant have no defined order: move the clock between them.
    t.clock.advance(MINUTE);
    expect((await post({ revoke_lifetime: true, minutes: 60 })).json()).toEqual({ adjusted: 1 });
    t.clock.advance(MINUTE);
    expect((await post({ minutes: -30 })).json()).toEqual({ adjusted: 1 });
    m = (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${alice}`)).json().membership;
    expect(m).toMatchObject({ is_lifetime: false, is_active: true, active_until: new Date(T0 + 31 * MINUTE).toISOString() });
    expect(m.adjustments.map((a: { revokes_lifetime_access: boolean }) => a.revokes_lifetime_access)).toEqual([false, true, false]);
  });

  it.each([
    ['minutes', { minutes: 10, grant_lifetime: true }],
    ['revoke_lifetime', { grant_lifetime: true, revoke_lifetime: true }],
    ['minutes', {}],
    ['minutes', { minutes: 0 }],
    ['minutes', { minutes: 1.5 }],
    ['reason', { minutes: 5, reason: 'r'.repeat(501) }],
    ['extra', { minutes: 5, extra: true }],
  ])('refuses a bad change with 422 naming %s and changes nobody', async (field, body) => {
    const alice = await signUp(t, app.headers, 'alice');
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/adjustments`, { user_ids: [alice], ...body });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe(field);
    const m = (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${alice}`)).json().membership;
    expect(m.adjustments).toEqual([]);
  });

  it('refuses an empty or malformed user list with 422 naming user_ids', async () => {
    for (const user_ids of [[], ['not-a-uuid'], 'all']) {
      const res = await consoleRequest(t, 'POST', `/applications/${app.id}/adjustments`, { user_ids, minutes: 5 });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0].field).toMatch(/^user_ids/);
    }
  });
});
