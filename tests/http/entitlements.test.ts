// Plans, entitlements and grace in every membership answer (docs/plans.md, "Entitlements",
// "Grace" and "Caps"), on both backends. A membership's plan and add-on grants are written
// behind the server's back until redemption writes them: the answers read them, never copy them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLicenseFile } from '../../src/signing/license-file.js';
import { bearer, call, expectError, login, member, signUp, token, type TestApplication } from '../support/integration.js';
import { sqlBehindTheServer } from '../support/sql-behind-the-server.js';
import { consoleRequest, createApplication, startTestApp, T0, type TestApp } from '../support/test-app.js';
import { MISSING_ID } from './console-helpers.js';

const MINUTE = 60_000;
const PASSWORD = 'correct horse battery';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false, default_allowed_sessions: 50 });
});
afterEach(() => t.close());

async function createPlan(body: Record<string, unknown>): Promise<string> {
  const res = await consoleRequest(t, 'POST', `/applications/${app.id}/plans`, { duration_minutes: 60, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/** A member with `minutes` of time holding the base plan. */
async function memberOfPlan(username: string, planId: string, minutes = 60): Promise<string> {
  const { id } = await member(t, app, username, PASSWORD, minutes);
  await sqlBehindTheServer(t, `update users set plan_id = '${planId}' where id = '${id}'`);
  return id;
}

const credentials = (username: string) => ({ username, password: PASSWORD });
const signUpOnly = (username: string) => signUp(t, app, username, PASSWORD);

async function loginMembership(username: string) {
  const res = await login(t, app, credentials(username));
  expect(res.statusCode, res.body).toBe(200);
  return res.json().membership;
}

async function contextMembership(username: string) {
  const res = await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(await token(t, app, credentials(username))) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().user.membership;
}

const putEntitlements = (userId: string, entitlements: unknown) => consoleRequest(t, 'PUT', `/applications/${app.id}/users/${userId}/entitlements`, { entitlements });

describe('the base plan in membership answers', () => {
  it('shows the plan and its entitlements in login, app_context, the console and a license file', async () => {
    const pro = await createPlan({ name: 'Pro', kind: 'base', entitlements: ['sync', 'export'] });
    const alice = await memberOfPlan('alice', pro);
    const expected = {
      is_active: true,
      is_lifetime: false,
      active_until: new Date(T0 + 60 * MINUTE).toISOString(),
      plan: { id: pro, name: 'Pro' },
      entitlements: ['export', 'sync'],
      in_grace: false,
      grace_ends_at: null,
    };
    expect(await loginMembership('alice')).toEqual(expected);
    expect(await contextMembership('alice')).toEqual(expected);
    const page = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${alice}`);
    expect(page.json().membership).toMatchObject(expected);

    const file = await call(t, app, 'POST', '/license_file', {}, { headers: bearer(await token(t, app, credentials('alice'))) });
    expect(file.statusCode, file.body).toBe(200);
    const { claims } = readLicenseFile(file.json().license_file as string);
    expect(claims).toMatchObject({ entitlements: ['export', 'sync'], plan: { id: pro, name: 'Pro' } });
  });

  it('applies a change of the plan at once, to everyone holding it', async () => {
    const pro = await createPlan({ name: 'Pro', kind: 'base', entitlements: ['export'] });
    await memberOfPlan('alice', pro);
    expect((await contextMembership('alice')).entitlements).toEqual(['export']);
    const patched = await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${pro}`, { name: 'Pro 2', entitlements: ['offline', 'export'] });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await contextMembership('alice')).toMatchObject({ plan: { id: pro, name: 'Pro 2' }, entitlements: ['export', 'offline'] });
  });

  it('drops the plan’s entitlements once the membership has ended, and keeps direct ones', async () => {
    const pro = await createPlan({ name: 'Pro', kind: 'base', entitlements: ['export'] });
    const alice = await memberOfPlan('alice', pro);
    await putEntitlements(alice, ['beta']);
    t.clock.advance(61 * MINUTE);
    const page = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${alice}`);
    expect(page.json().membership).toMatchObject({ is_active: false, plan: { id: pro, name: 'Pro' }, entitlements: ['beta'], in_grace: false, grace_ends_at: null });
  });
});

describe('direct grants', () => {
  it('are stored sorted without repeats, answered in the user view and shown to the user', async () => {
    const pro = await createPlan({ name: 'Pro', kind: 'base', entitlements: ['export'] });
    const alice = await memberOfPlan('alice', pro);
    const res = await putEntitlements(alice, ['beta', 'export', 'beta', 'a.b:c-d_e']);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: alice, membership: { entitlements: ['a.b:c-d_e', 'beta', 'export'] } });
    expect((await loginMembership('alice')).entitlements).toEqual(['a.b:c-d_e', 'beta', 'export']);
    // Replaced whole: an empty list takes them all back.
    expect((await putEntitlements(alice, [])).statusCode).toBe(200);
    expect((await contextMembership('alice')).entitlements).toEqual(['export']);
  });

  it('refuses bad codes, too many codes and unknown users, writing nothing', async () => {
    const { id: alice } = await member(t, app, 'alice', PASSWORD, 60);
    expect((await putEntitlements(alice, ['beta'])).statusCode).toBe(200);
    const bad = expectError(await putEntitlements(alice, ['Beta']), 422, 'VALIDATION_FAILED');
    expect(JSON.stringify(bad)).toContain('entitlements');
    expectError(
      await putEntitlements(
        alice,
        Array.from({ length: 101 }, (_, i) => `c${i}`),
      ),
      422,
      'VALIDATION_FAILED',
    );
    expectError(await putEntitlements(alice, 'beta'), 422, 'VALIDATION_FAILED');
    expectError(await putEntitlements(MISSING_ID, ['beta']), 404, 'USER_NOT_FOUND');
    expect((await loginMembership('alice')).entitlements).toEqual(['beta']);
  });
});

describe('licenses of a plan, redeemed', () => {
  const redeem = async (username: string, planId: string) => {
    const [license] = (await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count: 1, plan_id: planId })).json().licenses;
    const res = await call(t, app, 'POST', '/activate_license', { code: license.code, ...credentials(username) });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('a Pro license gives its entitlements in login, app_context and a license file', async () => {
    const pro = await createPlan({ name: 'Pro', kind: 'base', entitlements: ['sync', 'export'] });
    await signUpOnly('alice');
    await redeem('alice', pro);
    const expected = { is_active: true, plan: { id: pro, name: 'Pro' }, entitlements: ['export', 'sync'], active_until: new Date(T0 + 60 * MINUTE).toISOString() };
    expect(await loginMembership('alice')).toMatchObject(expected);
    expect(await contextMembership('alice')).toMatchObject(expected);
    const file = await call(t, app, 'POST', '/license_file', {}, { headers: bearer(await token(t, app, credentials('alice'))) });
    expect(readLicenseFile(file.json().license_file as string).claims).toMatchObject({ entitlements: ['export', 'sync'], plan: { id: pro, name: 'Pro' } });
  });

  it('an add-on license gives its entitlements in app_context while its grant runs, and none after', async () => {
    const pro = await createPlan({ name: 'Pro', kind: 'base', entitlements: ['export'], duration_minutes: 600 });
    const dlc = await createPlan({ name: 'Winter DLC', kind: 'add_on', entitlements: ['dlc_winter'], duration_minutes: 30 });
    await signUpOnly('alice');
    await redeem('alice', pro);
    expect((await contextMembership('alice')).entitlements).toEqual(['export']);
    await redeem('alice', dlc);
    expect((await contextMembership('alice')).entitlements).toEqual(['dlc_winter', 'export']);
    expect((await loginMembership('alice')).entitlements).toEqual(['dlc_winter', 'export']);
    t.clock.advance(30 * MINUTE);
    expect((await contextMembership('alice')).entitlements).toEqual(['export']);
  });
});

describe('add-on grants', () => {
  it('give their add-on’s entitlements while active, and nothing after', async () => {
    const dlc = await createPlan({ name: 'Winter DLC', kind: 'add_on', entitlements: ['dlc_winter'] });
    const { id: alice } = await member(t, app, 'alice', PASSWORD, null);
    await sqlBehindTheServer(t, `insert into add_on_grants (application_id, user_id, plan_id, ends_at, granted_at) values ('${app.id}', '${alice}', '${dlc}', ${T0 + 30 * MINUTE}, ${T0})`);
    expect(await loginMembership('alice')).toMatchObject({ plan: null, entitlements: ['dlc_winter'] });
    t.clock.advance(30 * MINUTE);
    expect((await contextMembership('alice')).entitlements).toEqual([]);
  });
});

describe('grace', () => {
  it('keeps access through the plan’s grace, read at the moment, and ends it on time', async () => {
    const pro = await createPlan({ name: 'Pro', kind: 'base', entitlements: ['export'], grace_minutes: 30 });
    await memberOfPlan('alice', pro);
    t.clock.advance(75 * MINUTE);
    const inGrace = {
      is_active: true,
      active_until: new Date(T0 + 60 * MINUTE).toISOString(),
      entitlements: ['export'],
      in_grace: true,
      grace_ends_at: new Date(T0 + 90 * MINUTE).toISOString(),
    };
    expect(await loginMembership('alice')).toMatchObject(inGrace);
    expect(await contextMembership('alice')).toMatchObject(inGrace);
    const file = await call(t, app, 'POST', '/license_file', {}, { headers: bearer(await token(t, app, credentials('alice'))) });
    expect(file.statusCode, file.body).toBe(200);
    expect(file.json().expires_at).toBe(new Date(T0 + 90 * MINUTE).toISOString());

    t.clock.advance(15 * MINUTE);
    expectError(await login(t, app, credentials('alice')), 403, 'MEMBERSHIP_INACTIVE');

    // Raising the grace lengthens the one under way.
    const raised = await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${pro}`, { grace_minutes: 120 });
    expect(raised.statusCode, raised.body).toBe(200);
    expect(await loginMembership('alice')).toMatchObject({ in_grace: true, grace_ends_at: new Date(T0 + 180 * MINUTE).toISOString() });
  });

  it('ends a session’s access when the grace ends', async () => {
    const pro = await createPlan({ name: 'Pro', kind: 'base', grace_minutes: 3 });
    await memberOfPlan('alice', pro, 1);
    t.clock.advance(2 * MINUTE);
    const session = await token(t, app, credentials('alice'));
    expect((await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(session) })).statusCode).toBe(200);
    t.clock.advance(2 * MINUTE);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(session) }), 403, 'MEMBERSHIP_INACTIVE');
  });
});

describe('caps', () => {
  it('take the user’s override, then the base plan’s, then the application’s defaults', async () => {
    const solo = await createPlan({ name: 'Solo', kind: 'base', max_sessions: 1 });
    const alice = await memberOfPlan('alice', solo);
    const userView = async () => (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${alice}`)).json();
    expect(await userView()).toMatchObject({ allowed_number_of_simultaneous_sessions: 1, caps_source: { sessions: 'plan', devices: 'application' } });
    expect((await login(t, app, credentials('alice'))).statusCode).toBe(200);
    expectError(await login(t, app, credentials('alice')), 401, 'SESSION_LIMIT_REACHED');

    const raised = await consoleRequest(t, 'PATCH', `/applications/${app.id}/users/${alice}`, { allowed_number_of_simultaneous_sessions: 2 });
    expect(raised.json()).toMatchObject({ allowed_number_of_simultaneous_sessions: 2, caps_source: { sessions: 'user' } });
    expect((await login(t, app, credentials('alice'))).statusCode).toBe(200);
    expectError(await login(t, app, credentials('alice')), 401, 'SESSION_LIMIT_REACHED');

    // Cleared, the plan's cap is back; the plan leaving it open gives the application's default.
    const cleared = await consoleRequest(t, 'PATCH', `/applications/${app.id}/users/${alice}`, { allowed_number_of_simultaneous_sessions: null });
    expect(cleared.json()).toMatchObject({ allowed_number_of_simultaneous_sessions: 1, caps_source: { sessions: 'plan' } });
    await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${solo}`, { max_sessions: null });
    expect(await userView()).toMatchObject({ allowed_number_of_simultaneous_sessions: 50, caps_source: { sessions: 'application' } });
    expect((await login(t, app, credentials('alice'))).statusCode).toBe(200);
  });
});
