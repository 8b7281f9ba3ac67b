// Per-user variables (end-user-features.md, docs/api.md "User variables"): the integration API for the
// user themselves, the console for the owner, the limits, and the boundaries an attacker would
// try to cross (another user, another application, no user at all).
import { createHash } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, expectError, member, token, type TestApplication } from '../support/integration.js';
import { shown } from '../support/shown-events.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp({ passwordQueue: 1000 });
  app = await createApplication(t, { device_auth: false, default_allowed_sessions: 10, legacy_auth: true });
});
afterEach(() => t.close());

/** A variable request as the holder of `tok` (a session token) of `on`. */
function vars(on: TestApplication, tok: string | null, method: InjectOptions['method'], name = '', value?: string) {
  return t.inject({
    method,
    url: `/api/integration/user_variables${name === '' ? '' : `/${encodeURIComponent(name)}`}`,
    headers: { ...on.headers, ...(tok === null ? {} : bearer(tok)) },
    ...(value === undefined ? {} : { payload: { value } }),
  });
}

async function signedIn(on: TestApplication, username: string) {
  const u = await member(t, on, username);
  return { ...u, tok: await token(t, on, { username, password: u.password }) };
}

describe('the integration API', () => {
  it('creates on first set, replaces, reads, lists by name and deletes', async () => {
    const { tok } = await signedIn(app, 'alice');
    const created = await vars(app, tok, 'PUT', 'settings.theme', 'dark');
    expect(created.statusCode).toBe(200);
    expect(created.json()).toEqual({ name: 'settings.theme', value: 'dark', updated_at: '2026-06-08T12:00:00.000Z' });
    t.clock.advance(60_000);
    expect((await vars(app, tok, 'PUT', 'settings.theme', 'light')).json()).toEqual({ name: 'settings.theme', value: 'light', updated_at: '2026-06-08T12:01:00.000Z' });
    await vars(app, tok, 'PUT', 'a_level-2', '');
    expect((await vars(app, tok, 'GET', 'settings.theme')).json()).toEqual({ name: 'settings.theme', value: 'light', updated_at: '2026-06-08T12:01:00.000Z' });
    const list = await vars(app, tok, 'GET');
    expect(list.statusCode).toBe(200);
    expect(list.json().map((v: { name: string }) => v.name)).toEqual(['a_level-2', 'settings.theme']);

    const deleted = await vars(app, tok, 'DELETE', 'settings.theme');
    expect(deleted.statusCode).toBe(204);
    expectError(await vars(app, tok, 'GET', 'settings.theme'), 404, 'VARIABLE_NOT_FOUND');
    expectError(await vars(app, tok, 'DELETE', 'settings.theme'), 404, 'VARIABLE_NOT_FOUND');
    expect((await vars(app, tok, 'GET')).json()).toEqual([{ name: 'a_level-2', value: '', updated_at: '2026-06-08T12:01:00.000Z' }]);
  });

  it('legacy header credentials reach the same variables', async () => {
    // Legacy seats need device authentication (docs/api.md, LEGACY_AUTH_NEEDS_DEVICE_AUTH).
    const legacy = await createApplication(t, { device_auth: true, default_allowed_sessions: 10, legacy_auth: true });
    const u = await member(t, legacy, 'alice', undefined, 60, { hardware_id: 'HW-1' });
    const tok = await token(t, legacy, { username: 'alice', password: u.password }, { hardware_id: 'HW-1' });
    await vars(legacy, tok, 'PUT', 'progress', '42');
    const headers = { ...legacy.headers, 'x-api-username': 'alice', 'x-api-password': u.password, 'x-hardware-id': 'HW-1' };
    const res = await t.inject({ method: 'GET', url: '/api/integration/user_variables/progress', headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().value).toBe('42');
  });

  it('401 for anonymous callers, even where the application allows anonymous access', async () => {
    const open = await createApplication(t, { device_auth: false, anonymous_access: true });
    for (const on of [app, open]) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        expectError(await vars(on, null, method, 'x', method === 'PUT' ? 'v' : undefined), 401, 'LOGIN_REQUIRED');
      }
      expectError(await vars(on, null, 'GET'), 401, 'LOGIN_REQUIRED');
    }
    expectError(await vars(app, 'not-a-token', 'GET'), 401, 'INVALID_CREDENTIALS');
  });

  it("another user's variables are unreachable: 404, and never listed", async () => {
    const alice = await signedIn(app, 'alice');
    const bob = await signedIn(app, 'bob');
    await vars(app, alice.tok, 'PUT', 'secret', 'alice only');
    expectError(await vars(app, bob.tok, 'GET', 'secret'), 404, 'VARIABLE_NOT_FOUND');
    expectError(await vars(app, bob.tok, 'DELETE', 'secret'), 404, 'VARIABLE_NOT_FOUND');
    expect((await vars(app, bob.tok, 'GET')).json()).toEqual([]);
    // Bob's own variable of the same name is his, and leaves Alice's as it was.
    await vars(app, bob.tok, 'PUT', 'secret', 'bob only');
    expect((await vars(app, alice.tok, 'GET', 'secret')).json().value).toBe('alice only');
    expect((await vars(app, bob.tok, 'GET', 'secret')).json().value).toBe('bob only');
  });

  it("another application's variables are unreachable, and its token is refused", async () => {
    const other = await createApplication(t, { device_auth: false });
    const here = await signedIn(app, 'alice');
    const there = await signedIn(other, 'alice');
    await vars(app, here.tok, 'PUT', 'k', 'here');
    expectError(await vars(other, there.tok, 'GET', 'k'), 404, 'VARIABLE_NOT_FOUND');
    // A token of one application presented with another's API key.
    expectError(await vars(other, here.tok, 'GET', 'k'), 401, 'INVALID_CREDENTIALS');
    expectError(await vars(app, there.tok, 'PUT', 'k', 'overwritten?'), 401, 'INVALID_CREDENTIALS');
    expect((await vars(app, here.tok, 'GET', 'k')).json().value).toBe('here');
  });

  it('a 64 KiB value round-trips; one byte more, or a longer name, or a bad character answers 422', async () => {
    const { tok } = await signedIn(app, 'alice');
    const big = 'x'.repeat(64 * 1024);
    expect((await vars(app, tok, 'PUT', 'big', big)).statusCode).toBe(200);
    expect((await vars(app, tok, 'GET', 'big')).json().value).toBe(big);
    // Counted in UTF-8 bytes: 21846 three-byte characters are 65538 bytes.
    const multibyte = '€'.repeat(21_846);
    for (const value of [`${big}y`, multibyte]) {
      const res = expectError(await vars(app, tok, 'PUT', 'big', value), 422, 'VALIDATION_FAILED') as unknown as { errors: Array<{ field: string }> };
      expect(res.errors[0]?.field).toBe('value');
    }
    const fits = '€'.repeat(21_845);
    expect((await vars(app, tok, 'PUT', 'euro', fits)).json().value).toBe(fits);
    expect((await vars(app, tok, 'PUT', 'n'.repeat(64), 'v')).statusCode).toBe(200);
    for (const name of ['n'.repeat(65), 'with space', 'slash/inside', 'ünïcode', 'semi;colon']) {
      expectError(await vars(app, tok, 'PUT', name, 'v'), 422, 'VALIDATION_FAILED');
      expectError(await vars(app, tok, 'GET', name), 422, 'VALIDATION_FAILED');
    }
    expectError(await t.inject({ method: 'PUT', url: '/api/integration/user_variables/k', headers: { ...app.headers, ...bearer(tok) }, payload: { value: 5 } }), 422, 'VALIDATION_FAILED');
    expectError(await t.inject({ method: 'PUT', url: '/api/integration/user_variables/k', headers: { ...app.headers, ...bearer(tok) }, payload: { value: 'v', extra: 1 } }), 422, 'VALIDATION_FAILED');
  });

  it('the 101st variable is refused with 422; replacing one of the 100 still works', async () => {
    const { tok } = await signedIn(app, 'alice');
    for (let i = 0; i < 100; i++) expect((await vars(app, tok, 'PUT', `v${i}`, String(i))).statusCode).toBe(200);
    expectError(await vars(app, tok, 'PUT', 'v100', 'one too many'), 422, 'VALIDATION_FAILED');
    expect((await vars(app, tok, 'PUT', 'v7', 'replaced')).statusCode).toBe(200);
    expect((await vars(app, tok, 'GET')).json()).toHaveLength(100);
    // Deleting one makes room again.
    await vars(app, tok, 'DELETE', 'v0');
    expect((await vars(app, tok, 'PUT', 'v100', 'fits now')).statusCode).toBe(200);
  });

  it('max_user_variables holds under 20 parallel writes of new names', async () => {
    const small = await createApplication(t, { device_auth: false, max_user_variables: 3 });
    const { tok } = await signedIn(small, 'alice');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => vars(small, tok, 'PUT', `p${i}`, 'v')));
    const byStatus = results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.statusCode]: (acc[r.statusCode] ?? 0) + 1 }), {});
    expect(byStatus).toEqual({ 200: 3, 422: 17 });
    expect((await vars(small, tok, 'GET')).json()).toHaveLength(3);
  });

  it("a user's values hold at most 1 MiB together, also under 20 parallel writes of 64 KiB", async () => {
    const { tok } = await signedIn(app, 'alice');
    const chunk = 'x'.repeat(64 * 1024);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => vars(app, tok, 'PUT', `big${i}`, chunk)));
    const byStatus = results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.statusCode]: (acc[r.statusCode] ?? 0) + 1 }), {});
    // 16 x 64 KiB is the whole MiB.
    expect(byStatus).toEqual({ 200: 16, 422: 4 });
    const refused = results.find((r) => r.statusCode === 422)!.json<{ errors: Array<{ field: string }> }>();
    expect(refused.errors[0]?.field).toBe('value');
    expectError(await vars(app, tok, 'PUT', 'one_more', 'y'), 422, 'VALIDATION_FAILED');
    const held = (await vars(app, tok, 'GET')).json<Array<{ name: string }>>();
    expect(held).toHaveLength(16);
    // Replacing a value counts its new size, not both: a smaller one fits, and frees room.
    expect((await vars(app, tok, 'PUT', held[0]!.name, 'small')).statusCode).toBe(200);
    expect((await vars(app, tok, 'PUT', 'one_more', 'y')).statusCode).toBe(200);
    // Another user has a MiB of their own.
    const bob = await signedIn(app, 'bob');
    expect((await vars(app, bob.tok, 'PUT', 'big', chunk)).statusCode).toBe(200);
  });

  it('writes are limited to 1000 an hour per user (429 with Retry-After), reads are not, and the hour ends', async () => {
    const lifetime = async (username: string) => {
      const u = await member(t, app, username, undefined, null);
      return { ...u, tok: await token(t, app, { username, password: u.password }) };
    };
    const alice = await lifetime('alice');
    const bob = await lifetime('bob');
    for (let i = 0; i < 1000; i++) {
      const res = await vars(app, alice.tok, i % 2 === 0 ? 'PUT' : 'DELETE', 'slot', i % 2 === 0 ? String(i) : undefined);
      expect(res.statusCode).toBe(i % 2 === 0 ? 200 : 204);
    }
    t.clock.advance(60_000);
    const refused = await vars(app, alice.tok, 'PUT', 'slot', 'again');
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers['retry-after']).toBe(String(59 * 60));
    expectError(await vars(app, alice.tok, 'DELETE', 'slot'), 429, 'RATE_LIMITED');
    // Nothing was written by the refusals; reading goes on, and another user is not limited.
    expectError(await vars(app, alice.tok, 'GET', 'slot'), 404, 'VARIABLE_NOT_FOUND');
    expect((await vars(app, bob.tok, 'PUT', 'slot', 'mine')).statusCode).toBe(200);
    t.clock.advance(59 * 60_000);
    const fresh = await token(t, app, { username: 'alice', password: alice.password });
    expect((await vars(app, fresh, 'PUT', 'slot', 'next hour')).statusCode).toBe(200);
  }, 120_000);

  it("a write's audit entry carries the value's length and SHA-256, never the value", async () => {
    const { tok, id } = await signedIn(app, 'alice');
    const big = 'secret-progress-'.repeat(4000);
    for (let i = 0; i < 5; i++) expect((await vars(app, tok, 'PUT', 'save', `${big}${i}`)).statusCode).toBe(200);
    expect((await vars(app, tok, 'DELETE', 'save')).statusCode).toBe(204);
    const entries = (await t.store.listEvents(app.id, { action: 'variable.changed' }, { limit: 10 })).map(shown);
    expect(entries).toHaveLength(6);
    for (const e of entries) {
      const stored = JSON.stringify([e.data, e.changes]);
      expect(stored).not.toContain('secret-progress');
      expect(stored.length).toBeLessThan(1000);
    }
    const digest = (v: string) => ({ length: Buffer.byteLength(v), sha256: createHash('sha256').update(v).digest('hex') });
    const [deleted, lastSet] = entries;
    expect(deleted).toMatchObject({ data: { scope: 'user', user_id: id, variable: null, deleted: true }, changes: { value: [digest(`${big}4`), null] } });
    expect(lastSet).toMatchObject({ data: { variable: { name: 'save', value: digest(`${big}4`) } }, changes: { value: [digest(`${big}3`), digest(`${big}4`)] } });
  });

  it('max_user_variables is a setting from 0 to 1000', async () => {
    const created = await createApplication(t, { max_user_variables: 0 });
    const shown = await consoleRequest(t, 'GET', `/applications/${created.id}`);
    expect(shown.json().max_user_variables).toBe(0);
    for (const bad of [-1, 1001, 2.5, null]) {
      expectError(await consoleRequest(t, 'PATCH', `/applications/${created.id}`, { max_user_variables: bad }), 422, 'VALIDATION_FAILED');
    }
    expect((await consoleRequest(t, 'PATCH', `/applications/${created.id}`, { max_user_variables: 1000 })).json().max_user_variables).toBe(1000);
  });
});

describe('the console', () => {
  it("lists, reads, sets and deletes a user's variables, and shows them on the user", async () => {
    const alice = await signedIn(app, 'alice');
    await vars(app, alice.tok, 'PUT', 'from_client', 'c');
    const base = `/applications/${app.id}/users/${alice.id}/variables`;
    const set = await consoleRequest(t, 'PUT', `${base}/from_owner`, { value: 'o' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ name: 'from_owner', value: 'o', updated_at: '2026-06-08T12:00:00.000Z' });
    expect((await consoleRequest(t, 'GET', base)).json().map((v: { name: string }) => v.name)).toEqual(['from_client', 'from_owner']);
    expect((await consoleRequest(t, 'GET', `${base}/from_client`)).json().value).toBe('c');
    // The user sees what the owner set.
    expect((await vars(app, alice.tok, 'GET', 'from_owner')).json().value).toBe('o');
    const user = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${alice.id}`);
    expect(user.json().variables).toEqual([
      { name: 'from_client', value: 'c', updated_at: '2026-06-08T12:00:00.000Z' },
      { name: 'from_owner', value: 'o', updated_at: '2026-06-08T12:00:00.000Z' },
    ]);
    expect((await consoleRequest(t, 'DELETE', `${base}/from_client`)).statusCode).toBe(204);
    expectError(await consoleRequest(t, 'DELETE', `${base}/from_client`), 404, 'VARIABLE_NOT_FOUND');
    expectError(await consoleRequest(t, 'GET', `${base}/from_client`), 404, 'VARIABLE_NOT_FOUND');
  });

  it('the same limits apply to the owner', async () => {
    const small = await createApplication(t, { device_auth: false, max_user_variables: 1 });
    const alice = await member(t, small, 'alice');
    const base = `/applications/${small.id}/users/${alice.id}/variables`;
    expect((await consoleRequest(t, 'PUT', `${base}/one`, { value: 'x'.repeat(64 * 1024) })).statusCode).toBe(200);
    expectError(await consoleRequest(t, 'PUT', `${base}/two`, { value: 'v' }), 422, 'VALIDATION_FAILED');
    expectError(await consoleRequest(t, 'PUT', `${base}/one`, { value: 'x'.repeat(64 * 1024 + 1) }), 422, 'VALIDATION_FAILED');
    expectError(await consoleRequest(t, 'PUT', `${base}/${'n'.repeat(65)}`, { value: 'v' }), 422, 'VALIDATION_FAILED');
  });

  it("another application's user, or an unknown one, answers 404 USER_NOT_FOUND", async () => {
    const other = await createApplication(t, { device_auth: false });
    const theirs = await member(t, other, 'mallory');
    const wrongApp = `/applications/${app.id}/users/${theirs.id}/variables`;
    expectError(await consoleRequest(t, 'GET', wrongApp), 404, 'USER_NOT_FOUND');
    expectError(await consoleRequest(t, 'PUT', `${wrongApp}/x`, { value: 'v' }), 404, 'USER_NOT_FOUND');
    expectError(await consoleRequest(t, 'DELETE', `${wrongApp}/x`), 404, 'USER_NOT_FOUND');
    expectError(await consoleRequest(t, 'GET', `/applications/${app.id}/users/00000000-0000-4000-8000-000000000000/variables`), 404, 'USER_NOT_FOUND');
  });

  it('the admin API User carries no variables', async () => {
    const created = await createApplication(t, { device_auth: false });
    const adminKey = created.credentials.admin_api_key;
    const alice = await member(t, created, 'alice');
    await consoleRequest(t, 'PUT', `/applications/${created.id}/users/${alice.id}/variables/k`, { value: 'v' });
    const admin = await t.inject({ method: 'GET', url: '/api/admin/user/alice', headers: bearer(adminKey) });
    expect(admin.statusCode).toBe(200);
    expect(admin.json()).not.toHaveProperty('variables');
  });
});
