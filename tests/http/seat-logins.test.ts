// Logins by a code of several seats, as an attacker holding one seat would try them (docs/plans.md,
// "Logins by a code of several seats"; docs/api.md, POST /sign_up_with_license_code, POST /auth/login).
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, expectError, login, type TestApplication } from '../support/integration.js';

let t: TestApp;
/** Device auth off: the machine is presented only to name the holder. */
let app: TestApplication & { credentials: { admin_api_key: string } };
/** Device auth and legacy headers on. */
let guarded: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false });
  guarded = await createApplication(t, { device_auth: true, legacy_auth: true, default_allowed_devices: 2 });
});
afterEach(() => t.close());

interface Holder {
  id: string;
  username: string;
  hardwareId: string;
}

async function planCode(target: TestApplication, seats: number): Promise<string> {
  const plan = await consoleRequest(t, 'POST', `/applications/${target.id}/plans`, { name: `Team of ${seats}`, kind: 'base', duration_minutes: 60 * 24, seats });
  if (plan.statusCode !== 201) throw new Error(`create plan: ${plan.statusCode} ${plan.body}`);
  const made = await consoleRequest(t, 'POST', `/applications/${target.id}/licenses`, { count: 1, plan_id: plan.json<{ id: string }>().id });
  if (made.statusCode !== 201) throw new Error(`create licenses: ${made.statusCode} ${made.body}`);
  return made.json<{ licenses: Array<{ code: string }> }>().licenses[0]!.code;
}

const signUpWith = (target: TestApplication, code: string, hardwareId?: string) =>
  call(t, target, 'POST', '/sign_up_with_license_code', { code, ...(hardwareId === undefined ? {} : { hardware_id: hardwareId }) });

async function holders(target: TestApplication, code: string, machines: string[]): Promise<Holder[]> {
  const made: Holder[] = [];
  for (const hardwareId of machines) {
    const res = await signUpWith(target, code, hardwareId);
    if (res.statusCode !== 201) throw new Error(`sign-up: ${res.statusCode} ${res.body}`);
    made.push({ ...res.json<{ id: string; username: string }>(), hardwareId });
  }
  return made;
}

/** The account a token login gets, as app_context names it. */
async function accountOf(target: TestApplication, res: LightMyRequestResponse): Promise<{ id: string; username: string }> {
  expect(res.statusCode, res.body).toBe(200);
  const context = await call(t, target, 'GET', '/app_context', undefined, { headers: bearer(res.json<{ session_token: string }>().session_token) });
  expect(context.statusCode, context.body).toBe(200);
  const { id, username } = context.json<{ user: { id: string; username: string } }>().user;
  return { id, username };
}

const legacyContext = (code: string, hardwareId: string) => call(t, guarded, 'GET', '/app_context', undefined, { headers: { 'x-api-license-code': code, 'x-hardware-id': hardwareId } });
const userCount = async (appId: string) => (await t.store.searchUsers(appId, '', { limit: 100, offset: 0 })).length;

describe('logging in with a code of several seats', () => {
  it('three holders of a 5-seat code each get their own account by code and machine', async () => {
    for (const target of [app, guarded]) {
      const code = await planCode(target, 5);
      const team = await holders(target, code, ['hw-a', 'hw-b', 'hw-c']);
      expect(new Set(team.map((h) => h.id)).size).toBe(3);
      for (const holder of team) {
        const account = await accountOf(target, await login(t, target, { code }, { hardware_id: holder.hardwareId }));
        expect(account).toEqual({ id: holder.id, username: holder.username });
      }
    }
  });

  it('401 INVALID_CREDENTIALS for the code without a machine or with an unknown one; another application refuses it', async () => {
    const code = await planCode(app, 5);
    await holders(app, code, ['hw-a', 'hw-b']);
    expectError(await login(t, app, { code }), 401, 'INVALID_CREDENTIALS');
    expectError(await login(t, app, { code }, { hardware_id: 'hw-unknown' }), 401, 'INVALID_CREDENTIALS');
    expectError(await login(t, guarded, { code }, { hardware_id: 'hw-a' }), 401, 'LICENSE_INVALID');
    // Another application's machine of the same name names no holder of this code either.
    const theirs = await planCode(guarded, 5);
    await holders(guarded, theirs, ['hw-z', 'hw-y']);
    expectError(await login(t, app, { code }, { hardware_id: 'hw-z' }), 401, 'INVALID_CREDENTIALS');
  });

  it('the legacy header names the holder by x-hardware-id, and refuses an unknown machine', async () => {
    const code = await planCode(guarded, 5);
    const team = await holders(guarded, code, ['hw-a', 'hw-b', 'hw-c']);
    for (const holder of team) {
      const res = await legacyContext(code, holder.hardwareId);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ user: { id: string } }>().user.id).toBe(holder.id);
    }
    expectError(await legacyContext(code, 'hw-unknown'), 401, 'INVALID_CREDENTIALS');
  });

  it('a code with one holder so far logs in without a machine, as before; the second holder ends that', async () => {
    const code = await planCode(app, 5);
    const [first] = await holders(app, code, ['hw-a']);
    expect(await accountOf(app, await login(t, app, { code }))).toEqual({ id: first!.id, username: first!.username });
    await holders(app, code, ['hw-b']);
    expectError(await login(t, app, { code }), 401, 'INVALID_CREDENTIALS');
  });

  it('single-seat and minutes codes log in exactly as before, without a machine, by body and by header', async () => {
    const single = await planCode(app, 1);
    const [minutes] = (await createLicenses(t, app.id, 1, 60)) as [string];
    for (const code of [single, minutes]) {
      const res = await signUpWith(app, code);
      expect(res.statusCode, res.body).toBe(201);
      expect(await accountOf(app, await login(t, app, { code }))).toEqual({ id: res.json<{ id: string }>().id, username: res.json<{ username: string }>().username });
    }
    const guardedSingle = await planCode(guarded, 1);
    const [guardedMinutes] = (await createLicenses(t, guarded.id, 1, 60)) as [string];
    for (const code of [guardedSingle, guardedMinutes]) {
      const id = (await signUpWith(guarded, code, 'hw-signed-up')).json<{ id: string }>().id;
      // Device auth registers a second machine at login, as before: one holder needs none registered.
      const res = await legacyContext(code, 'hw-another');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ user: { id: string } }>().user.id).toBe(id);
    }
  });

  it('reset_devices by a shared code is refused: the machine it would unregister is how the holder is named', async () => {
    const withReset = await createApplication(t, { device_auth: false, device_reset_cooldown_hours: 24 });
    const code = await planCode(withReset, 3);
    await holders(withReset, code, ['hw-a', 'hw-b']);
    expectError(await call(t, withReset, 'POST', '/reset_devices', { code }), 401, 'INVALID_CREDENTIALS');
  });
});

describe('signing up with a code of several seats', () => {
  it('422 VALIDATION_FAILED on hardware_id without a machine, writing nothing', async () => {
    const code = await planCode(app, 5);
    const before = await userCount(app.id);
    const body = expectError(await signUpWith(app, code), 422, 'VALIDATION_FAILED') as { errors?: Array<{ field: string }> };
    expect(body.errors?.map((e) => e.field)).toEqual(['hardware_id']);
    expect(await userCount(app.id)).toBe(before);
    const listed = (await consoleRequest(t, 'GET', `/applications/${app.id}/licenses`)).json<Array<{ redemptions: number; used_at: string | null }>>();
    expect(listed[0]).toMatchObject({ redemptions: 0, used_at: null });
  });

  it('409 LICENSE_ALREADY_REDEEMED from a machine that holds a seat already, writing nothing', async () => {
    for (const target of [app, guarded]) {
      const code = await planCode(target, 5);
      await holders(target, code, ['hw-a']);
      const before = await userCount(target.id);
      expectError(await signUpWith(target, code, 'hw-a'), 409, 'LICENSE_ALREADY_REDEEMED');
      expect(await userCount(target.id)).toBe(before);
      // Another machine still takes a seat.
      expect((await signUpWith(target, code, 'hw-b')).statusCode).toBe(201);
    }
  });

  it('registers the machine even without device auth', async () => {
    const code = await planCode(app, 5);
    const [holder] = await holders(app, code, ['hw-a']);
    expect((await t.store.getUserDetails(app.id, holder!.id))?.devices.map((d) => d.hardwareId)).toEqual(['hw-a']);
  });
});

describe('the admin lookup of a code of several holders', () => {
  const admin = (path: string, method: 'GET' | 'POST' = 'GET', payload?: object) =>
    t.inject({ method, url: `/api/admin${path}`, headers: { authorization: `Bearer ${app.credentials.admin_api_key}` }, ...(payload ? { payload } : {}) });

  it('answers its one holder, then 409 LICENSE_HELD_BY_SEVERAL once a second holds it', async () => {
    const code = await planCode(app, 5);
    const [first] = await holders(app, code, ['hw-a']);
    const one = await admin(`/user/${encodeURIComponent(code)}`);
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json<{ id: string }>().id).toBe(first!.id);
    await holders(app, code, ['hw-b']);
    expectError(await admin(`/user/${encodeURIComponent(code)}`), 409, 'LICENSE_HELD_BY_SEVERAL');
    expectError(await admin('/license_files', 'POST', { username_or_license_code: code, hardware_id: 'hw-a' }), 409, 'LICENSE_HELD_BY_SEVERAL');
    // By username each holder is still found.
    expect((await admin(`/user/${first!.username}`)).statusCode).toBe(200);
  });
});
