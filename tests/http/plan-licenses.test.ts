// Licenses of a plan (docs/api.md, Licenses; docs/plans.md): issued in the console, redeemed at
// sign-up and by activate_license, a code's seats shared by several users, and a seat released.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/application/ports/event-store.js';
import { shown } from '../support/shown-events.js';
import { rowsBehindTheServer, sqlBehindTheServer } from '../support/sql-behind-the-server.js';
import { consoleRequest, createApplication, createLicenses, startTestApp, T0, type TestApp } from '../support/test-app.js';
import { call, expectError, signUp, type TestApplication } from '../support/integration.js';
import { MISSING_ID } from './console-helpers.js';

const DAY_MS = 24 * 60 * 60_000;
const MONTH = 30 * 24 * 60;
const PASSWORD = 'password123';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false });
});
afterEach(() => t.close());

interface License {
  id: string;
  code: string;
  plan_id: string | null;
  seats: number;
  redemptions: number;
  minutes: number | null;
  used_at: string | null;
  used_by_user_id: string | null;
}

async function plan(payload: Record<string, unknown>, appId = app.id): Promise<string> {
  const res = await consoleRequest(t, 'POST', `/applications/${appId}/plans`, { kind: 'base', duration_minutes: MONTH, ...payload });
  if (res.statusCode !== 201) throw new Error(`create plan: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>().id;
}

async function licensesOf(planId: string, count = 1): Promise<License[]> {
  const res = await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count, plan_id: planId });
  if (res.statusCode !== 201) throw new Error(`create licenses: ${res.statusCode} ${res.body}`);
  return res.json<{ licenses: License[] }>().licenses;
}

const activate = (code: string, username: string) => call(t, app, 'POST', '/activate_license', { code, username, password: PASSWORD });
const signUpWith = (code: string, hardwareId?: string) => call(t, app, 'POST', '/sign_up_with_license_code', { code, ...(hardwareId === undefined ? {} : { hardware_id: hardwareId }) });
const license = async (code: string) => (await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${code}`)).json<License>();
const userPage = async (id: string) =>
  (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${id}`)).json<{
    membership: { active_until: string | null; is_lifetime: boolean; adjustments: Array<Record<string, unknown>> };
  }>();
const planOf = async (userId: string) => (await t.store.findUserById(app.id, userId))?.planId ?? null;
const events = async (action: string): Promise<EventRecord[]> => (await t.store.listEvents(app.id, {}, { limit: 1000 })).map(shown).filter((e) => e.action === action);
const redemptions = (l: License) => consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${l.id}/redemptions`);
const release = (l: License, userId: string) => consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${l.id}/redemptions/${userId}`);

async function users(n: number): Promise<Array<{ id: string; username: string }>> {
  const made = [];
  for (let i = 0; i < n; i++) made.push(await signUp(t, app, `user${i}`, PASSWORD));
  return made;
}

describe('issuing licenses of a plan', () => {
  it('stores the plan and its seats; minutes stay null and nothing is redeemed', async () => {
    const team = await plan({ name: 'Team', seats: 5 });
    const [l] = await licensesOf(team);
    expect(l).toMatchObject({ plan_id: team, seats: 5, redemptions: 0, minutes: null, used_at: null });
    expect(await license(l!.code)).toMatchObject({ plan_id: team, seats: 5, redemptions: 0 });
    const [listed] = (await consoleRequest(t, 'GET', `/applications/${app.id}/licenses`)).json<License[]>();
    expect(listed).toMatchObject({ id: l!.id, plan_id: team, seats: 5 });
  });

  it('a seat count changed later leaves issued codes as they were', async () => {
    const team = await plan({ name: 'Team', seats: 5 });
    const [l] = await licensesOf(team);
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${team}`, { seats: 2 })).statusCode).toBe(200);
    expect((await license(l!.code)).seats).toBe(5);
  });

  it('exactly one of minutes and plan_id, else 422; unknown, foreign and archived plans refused; nothing written', async () => {
    const pro = await plan({ name: 'Pro' });
    const other = await createApplication(t);
    const foreign = await plan({ name: 'Pro' }, other.id);
    const post = (body: Record<string, unknown>) => consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count: 1, ...body });
    expectError(await post({ minutes: 60, plan_id: pro }), 422, 'VALIDATION_FAILED');
    expectError(await post({ minutes: null, plan_id: pro }), 422, 'VALIDATION_FAILED');
    expectError(await post({}), 422, 'VALIDATION_FAILED');
    expectError(await post({ plan_id: MISSING_ID }), 404, 'PLAN_NOT_FOUND');
    expectError(await post({ plan_id: foreign }), 404, 'PLAN_NOT_FOUND');
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}/plans/${pro}`, { archived: true })).statusCode).toBe(200);
    expectError(await post({ plan_id: pro }), 422, 'PLAN_ARCHIVED');
    expect(await t.store.listLicenses(app.id)).toEqual([]);
  });

  it('a plan with licenses is in use: 409 PLAN_IN_USE, and it stays', async () => {
    const pro = await plan({ name: 'Pro' });
    await licensesOf(pro);
    expectError(await consoleRequest(t, 'DELETE', `/applications/${app.id}/plans/${pro}`), 409, 'PLAN_IN_USE');
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/plans/${pro}`)).statusCode).toBe(200);
  });
});

describe('redeeming a base plan', () => {
  it('at sign-up with the code: the new user holds the plan and its time', async () => {
    const pro = await plan({ name: 'Pro' });
    const [l] = await licensesOf(pro);
    const res = await signUpWith(l!.code);
    expect(res.statusCode).toBe(201);
    const id = res.json<{ id: string }>().id;
    expect(await planOf(id)).toBe(pro);
    const page = await userPage(id);
    expect(page.membership.active_until).toBe(new Date(T0 + 30 * DAY_MS).toISOString());
    expect(page.membership.adjustments).toEqual([expect.objectContaining({ type: 'license', minutes: MONTH, license_id: l!.id, plan_from: null, plan_to: pro })]);
    expect(await license(l!.code)).toMatchObject({ redemptions: 1, used_by_user_id: id });
  });

  it('by activate_license: sets the plan; switching keeps the remaining time and announces membership.plan_changed', async () => {
    const [alice] = await users(1);
    const basic = await plan({ name: 'Basic' });
    const pro = await plan({ name: 'Pro' });
    const [b] = await licensesOf(basic);
    const first = await activate(b!.code, 'user0');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ minutes: MONTH, plan_from: null, plan_to: basic });
    expect(await planOf(alice!.id)).toBe(basic);
    expect(await events('membership.plan_changed')).toEqual([]);

    t.clock.advance(10 * DAY_MS);
    const [p] = await licensesOf(pro);
    const switched = await activate(p!.code, 'user0');
    expect(switched.json()).toMatchObject({ type: 'license', minutes: MONTH, plan_from: basic, plan_to: pro });
    expect(await planOf(alice!.id)).toBe(pro);
    // 20 days left of Basic, plus Pro's 30.
    expect((await userPage(alice!.id)).membership.active_until).toBe(new Date(T0 + 60 * DAY_MS).toISOString());
    const [changed] = await events('membership.plan_changed');
    expect(changed?.data).toMatchObject({ plan_from: basic, plan_to: pro, adjustment: { plan_from: basic, plan_to: pro } });
  });

  it('a minutes license keeps the plan', async () => {
    const [alice] = await users(1);
    const pro = await plan({ name: 'Pro' });
    const [p] = await licensesOf(pro);
    await activate(p!.code, 'user0');
    const [code] = await createLicenses(t, app.id, 1, 60);
    expect((await activate(code!, 'user0')).json()).toMatchObject({ minutes: 60, plan_from: null, plan_to: null });
    expect(await planOf(alice!.id)).toBe(pro);
  });
});

describe('redeeming an add-on', () => {
  it('grants the add-on apart from the membership, and a second code stacks on the grant', async () => {
    const [alice] = await users(1);
    const exporter = await plan({ name: 'Export', kind: 'add_on', duration_minutes: 7 * 24 * 60 });
    const [a, b] = await licensesOf(exporter, 2);
    const res = await activate(a!.code, 'user0');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ minutes: null, grants_lifetime_access: false, plan_from: null, plan_to: null, license_id: a!.id });
    expect((await userPage(alice!.id)).membership.active_until).toBeNull();
    t.clock.advance(DAY_MS);
    await activate(b!.code, 'user0');
    const grants = await rowsBehindTheServer<{ ends_at: number | string }>(t, `select ends_at from add_on_grants where user_id = '${alice!.id}'`);
    expect(grants.map((g) => Number(g.ends_at))).toEqual([T0 + 14 * DAY_MS]);
    expectError(await consoleRequest(t, 'DELETE', `/applications/${app.id}/plans/${exporter}`), 409, 'PLAN_IN_USE');
  });
});

describe('seats', () => {
  it('a 5-seat code takes 5 users; the 6th is refused LICENSE_USED, the same user again LICENSE_ALREADY_REDEEMED', async () => {
    const team = await plan({ name: 'Team', seats: 5 });
    const [l] = await licensesOf(team);
    const them = await users(6);
    for (const u of them.slice(0, 5)) expect((await activate(l!.code, u.username)).statusCode).toBe(200);
    expectError(await activate(l!.code, 'user5'), 401, 'LICENSE_USED');
    expectError(await signUpWith(l!.code, 'hw-6'), 422, 'LICENSE_USED');
    const again = expectError(await activate(l!.code, 'user0'), 409, 'LICENSE_ALREADY_REDEEMED');
    expect(again.message).toBeTruthy();
    expect(await license(l!.code)).toMatchObject({ redemptions: 5, used_by_user_id: them[0]!.id });
    // The refusals changed nothing: still five adjustments, one a user.
    expect((await userPage(them[0]!.id)).membership.adjustments).toHaveLength(1);
    expect(await planOf(them[5]!.id)).toBeNull();
  });

  it('sign-ups with a seat code make one user a seat', async () => {
    const team = await plan({ name: 'Team', seats: 2 });
    const [l] = await licensesOf(team);
    expect((await signUpWith(l!.code, 'hw-1')).statusCode).toBe(201);
    expect((await signUpWith(l!.code, 'hw-2')).statusCode).toBe(201);
    expectError(await signUpWith(l!.code, 'hw-3'), 422, 'LICENSE_USED');
  });

  it('20 parallel redemptions of a 5-seat code, through two instances, never pass 5', async () => {
    const peer = await t.startPeer();
    const team = await plan({ name: 'Team', seats: 5 });
    const [l] = await licensesOf(team);
    const them = await users(20);
    const answers = await Promise.all(
      them.map((u, i) =>
        (i % 2 === 0 ? t : peer).inject({ method: 'POST', url: '/api/integration/activate_license', headers: app.headers, payload: { code: l!.code, username: u.username, password: PASSWORD } }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 401)).toBe(true);
    expect(answers.filter((a) => a.statusCode === 401).every((a) => a.json<{ error_code: string }>().error_code === 'LICENSE_USED')).toBe(true);
    expect(await license(l!.code)).toMatchObject({ redemptions: 5 });
    expect((await redemptions(l!)).json()).toHaveLength(5);
  });
});

describe('who redeemed a code, and releasing a seat', () => {
  it('lists the redeemers; releasing one takes back the time and the plan, and frees the seat', async () => {
    const team = await plan({ name: 'Team', seats: 2 });
    const basic = await plan({ name: 'Basic' });
    const [l] = await licensesOf(team);
    const [bl] = await licensesOf(basic);
    const [alice, bob, carol] = await users(3);
    await activate(bl!.code, 'user0');
    await activate(l!.code, 'user0');
    t.clock.advance(60_000);
    await activate(l!.code, 'user1');
    expect(await planOf(alice!.id)).toBe(team);

    const listed = await redemptions(l!);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual([
      { user_id: alice!.id, username: 'user0', redeemed_at: new Date(T0).toISOString() },
      { user_id: bob!.id, username: 'user1', redeemed_at: new Date(T0 + 60_000).toISOString() },
    ]);
    expectError(await activate(l!.code, 'user2'), 401, 'LICENSE_USED');

    const res = await release(l!, alice!.id);
    expect(res.statusCode).toBe(204);
    expect(await planOf(alice!.id)).toBe(basic);
    const page = await userPage(alice!.id);
    expect(page.membership.active_until).toBe(new Date(T0 + 30 * DAY_MS).toISOString());
    expect(page.membership.adjustments).toContainEqual(expect.objectContaining({ type: 'bulk', minutes: -MONTH, license_id: l!.id, plan_from: team, plan_to: basic }));
    expect(await license(l!.code)).toMatchObject({ redemptions: 1, used_by_user_id: bob!.id });
    expect((await events('membership.adjusted')).map((e) => e.target.id)).toContain(alice!.id);

    // The seat is free again: carol takes it; releasing alice again finds nothing.
    t.clock.advance(60_000);
    expect((await activate(l!.code, 'user2')).statusCode).toBe(200);
    expect((await redemptions(l!)).json<Array<{ user_id: string }>>().map((r) => r.user_id)).toEqual([bob!.id, carol!.id]);
    expectError(await release(l!, alice!.id), 404, 'REDEMPTION_NOT_FOUND');
  });

  it('releasing an add-on seat ends the grant it gave', async () => {
    const exporter = await plan({ name: 'Export', kind: 'add_on', seats: 3 });
    const [l] = await licensesOf(exporter);
    const [alice] = await users(1);
    await activate(l!.code, 'user0');
    expect((await release(l!, alice!.id)).statusCode).toBe(204);
    const grants = await rowsBehindTheServer<{ ends_at: number | string }>(t, `select ends_at from add_on_grants where user_id = '${alice!.id}'`);
    expect(grants.map((g) => Number(g.ends_at))).toEqual([T0]);
    // Every seat released: the code is unused again.
    expect(await license(l!.code)).toMatchObject({ redemptions: 0, used_at: null, used_by_user_id: null });
  });

  it('unknown licenses and users: 404 with a code', async () => {
    const team = await plan({ name: 'Team', seats: 2 });
    const [l] = await licensesOf(team);
    expectError(await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${MISSING_ID}/redemptions`), 404, 'LICENSE_NOT_FOUND');
    expectError(await release(l!, MISSING_ID), 404, 'REDEMPTION_NOT_FOUND');
    expectError(await consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${MISSING_ID}/redemptions/${MISSING_ID}`), 404, 'REDEMPTION_NOT_FOUND');
    const [code] = await createLicenses(t, app.id, 1, 60);
    const minutes = await license(code!);
    expect((await redemptions(minutes)).json()).toEqual([]);
  });

  it('a deleted user shows with username null and its seat can still be released', async () => {
    const team = await plan({ name: 'Team', seats: 2 });
    const [l] = await licensesOf(team);
    const [alice] = await users(1);
    await activate(l!.code, 'user0');
    // No route deletes a user yet (docs/api.md): the row goes as a deletion would take it.
    await sqlBehindTheServer(t, `delete from users where id = '${alice!.id}'`);
    expect((await redemptions(l!)).json()).toEqual([{ user_id: alice!.id, username: null, redeemed_at: new Date(T0).toISOString() }]);
    expect((await release(l!, alice!.id)).statusCode).toBe(204);
    expect(await license(l!.code)).toMatchObject({ redemptions: 0 });
  });
});
