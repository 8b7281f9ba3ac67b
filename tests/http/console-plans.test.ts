// The console's plans (docs/api.md, Plans): created, listed, read, changed, archived and deleted,
// each refusal a 4xx with its code and nothing written, and no plan reached across applications.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, T0, consoleRequest, createApplication, startTestApp } from '../support/test-app.js';
import { ISO, MISSING_ID, UUID, bearerOf, otherOwnerToken } from './console-helpers.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t);
});
afterEach(async () => {
  await t.close();
});

const plans = (appId = app.id) => `/applications/${appId}/plans`;
const PRO = { name: 'Pro', kind: 'base', duration_minutes: 43_200, entitlements: ['export', 'beta', 'export'], seats: 5, grace_minutes: 4320 };

async function created(payload: Record<string, unknown> = PRO, appId = app.id): Promise<{ id: string; name: string }> {
  const res = await consoleRequest(t, 'POST', plans(appId), payload);
  if (res.statusCode !== 201) throw new Error(`create plan: ${res.statusCode} ${res.body}`);
  return res.json();
}

function expectRefusal(res: { statusCode: number; json: () => { error_code: string; errors?: Array<{ field: string }> } }, status: number, code: string, field?: string) {
  expect(res.statusCode).toBe(status);
  expect(res.json().error_code).toBe(code);
  if (field !== undefined) expect(res.json().errors?.map((e) => e.field)).toContain(field);
}

describe('creating and reading plans', () => {
  it('creates a plan with the defaults filled in, entitlements sorted without repeats', async () => {
    const res = await consoleRequest(t, 'POST', plans(), PRO);
    expect(res.statusCode).toBe(201);
    const plan = res.json();
    expect(plan).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Pro',
      kind: 'base',
      duration_minutes: 43_200,
      entitlements: ['beta', 'export'],
      max_devices: null,
      max_sessions: null,
      seats: 5,
      grace_minutes: 4320,
      trial: false,
      floating: false,
      max_borrow_minutes: 0,
      archived: false,
      created_at: new Date(T0).toISOString(),
      updated_at: new Date(T0).toISOString(),
    });
    expect((await consoleRequest(t, 'GET', `${plans()}/${plan.id}`)).json()).toEqual(plan);
  });

  it('lists the application’s plans oldest first, a lifetime add-on among them', async () => {
    const pro = await created();
    t.clock.advance(1000);
    const extra = await created({ name: '  Extra storage ', kind: 'add_on', duration_minutes: null, entitlements: ['storage:100gb'], max_devices: 0, floating: true, max_borrow_minutes: 60 });
    expect(extra).toMatchObject({ name: 'Extra storage', kind: 'add_on', duration_minutes: null, max_devices: 0, floating: true, max_borrow_minutes: 60 });
    const list = await consoleRequest(t, 'GET', plans());
    expect(list.statusCode).toBe(200);
    expect(list.json().map((p: { id: string }) => p.id)).toEqual([pro.id, extra.id]);
  });

  it('accepts the bounds of every range', async () => {
    const most = {
      name: 'x'.repeat(100),
      kind: 'base',
      duration_minutes: 52_560_000,
      entitlements: Array.from({ length: 100 }, (_, i) => `code-${i}`),
      max_devices: 1000,
      max_sessions: 1000,
      seats: 10_000,
      grace_minutes: 525_600,
      trial: true,
      max_borrow_minutes: 43_200,
    };
    expect((await consoleRequest(t, 'POST', plans(), most)).statusCode).toBe(201);
    const least = { name: 'y', kind: 'base', duration_minutes: 1, entitlements: ['a'.repeat(64)], max_devices: 0, max_sessions: 1, seats: 1, grace_minutes: 0, max_borrow_minutes: 0 };
    expect((await consoleRequest(t, 'POST', plans(), least)).statusCode).toBe(201);
  });

  it('refuses a name the application already has with 409 PLAN_NAME_TAKEN; another application may use it', async () => {
    await created();
    expectRefusal(await consoleRequest(t, 'POST', plans(), { ...PRO, name: ' Pro ' }), 409, 'PLAN_NAME_TAKEN');
    const other = await createApplication(t, { name: 'Other' });
    await created(PRO, other.id);
    expect((await consoleRequest(t, 'GET', plans())).json()).toHaveLength(1);
  });

  it('ten parallel creations of one name make one plan; the others answer 409 PLAN_NAME_TAKEN', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => consoleRequest(t, 'POST', plans(), { ...PRO, seats: i + 1 })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const r of answers.filter((a) => a.statusCode === 409)) expect(r.json().error_code).toBe('PLAN_NAME_TAKEN');
    expect((await consoleRequest(t, 'GET', plans())).json()).toHaveLength(1);
  });

  it.each([
    ['a bad entitlement code', { entitlements: ['Export'] }, 'entitlements'],
    ['an entitlement code of 65 characters', { entitlements: ['a'.repeat(65)] }, 'entitlements.0'],
    ['an empty entitlement code', { entitlements: [''] }, 'entitlements'],
    ['101 entitlements', { entitlements: Array.from({ length: 101 }, (_, i) => `c${i}`) }, 'entitlements'],
    ['a trial add-on', { kind: 'add_on', trial: true }, 'trial'],
    ['an unknown kind', { kind: 'bundle' }, 'kind'],
    ['duration 0', { duration_minutes: 0 }, 'duration_minutes'],
    ['a duration past a hundred years', { duration_minutes: 52_560_001 }, 'duration_minutes'],
    ['a fractional duration', { duration_minutes: 1.5 }, 'duration_minutes'],
    ['a missing duration', { duration_minutes: undefined }, 'duration_minutes'],
    ['max_devices 1001', { max_devices: 1001 }, 'max_devices'],
    ['max_devices -1', { max_devices: -1 }, 'max_devices'],
    ['max_sessions 0', { max_sessions: 0 }, 'max_sessions'],
    ['seats 0', { seats: 0 }, 'seats'],
    ['seats 10001', { seats: 10_001 }, 'seats'],
    ['grace past a year', { grace_minutes: 525_601 }, 'grace_minutes'],
    ['negative grace', { grace_minutes: -1 }, 'grace_minutes'],
    ['borrowing past thirty days', { max_borrow_minutes: 43_201 }, 'max_borrow_minutes'],
    ['seats as a string', { seats: '5' }, 'seats'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a name of 101 characters', { name: 'n'.repeat(101) }, 'name'],
    ['archived at creation', { archived: true }, 'archived'],
    ['an unknown field', { colour: 'red' }, 'colour'],
  ])('refuses %s with 422 naming the field, and creates nothing', async (_label, change, field) => {
    expectRefusal(await consoleRequest(t, 'POST', plans(), { ...PRO, ...change }), 422, 'VALIDATION_FAILED', field);
    expect((await consoleRequest(t, 'GET', plans())).json()).toEqual([]);
  });
});

describe('changing plans', () => {
  it('patches the fields given, keeps the rest and stamps updated_at', async () => {
    const pro = await created();
    t.clock.advance(60_000);
    const res = await consoleRequest(t, 'PATCH', `${plans()}/${pro.id}`, { entitlements: ['sso'], max_sessions: 3, duration_minutes: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Pro', seats: 5, entitlements: ['sso'], max_sessions: 3, duration_minutes: null, updated_at: new Date(T0 + 60_000).toISOString() });
    expect(res.json().created_at).toBe(new Date(T0).toISOString());
    expect((await consoleRequest(t, 'GET', `${plans()}/${pro.id}`)).json()).toEqual(res.json());
  });

  it('archives and restores a plan', async () => {
    const pro = await created();
    expect((await consoleRequest(t, 'PATCH', `${plans()}/${pro.id}`, { archived: true })).json()).toMatchObject({ archived: true });
    expect((await consoleRequest(t, 'GET', plans())).json()).toEqual([expect.objectContaining({ id: pro.id, archived: true })]);
    expect((await consoleRequest(t, 'PATCH', `${plans()}/${pro.id}`, { archived: false })).json()).toMatchObject({ archived: false });
  });

  it.each([
    ['a change of kind', { kind: 'add_on' }, 422, 'VALIDATION_FAILED'],
    ['a bad entitlement code', { entitlements: ['no spaces'] }, 422, 'VALIDATION_FAILED'],
    ['seats 0', { seats: 0 }, 422, 'VALIDATION_FAILED'],
    ['an unknown field', { id: MISSING_ID }, 422, 'VALIDATION_FAILED'],
    ['a name another plan has', { name: 'Basic' }, 409, 'PLAN_NAME_TAKEN'],
  ])('refuses %s and changes nothing', async (_label, change, status, code) => {
    await created({ name: 'Basic', kind: 'base', duration_minutes: 60 });
    const pro = await created();
    const before = (await consoleRequest(t, 'GET', `${plans()}/${pro.id}`)).json();
    expectRefusal(await consoleRequest(t, 'PATCH', `${plans()}/${pro.id}`, { ...change, grace_minutes: 1 }), status, code);
    expect((await consoleRequest(t, 'GET', `${plans()}/${pro.id}`)).json()).toEqual(before);
  });

  it('refuses to make an add-on a trial plan', async () => {
    const addOn = await created({ name: 'Extra', kind: 'add_on', duration_minutes: 60 });
    expectRefusal(await consoleRequest(t, 'PATCH', `${plans()}/${addOn.id}`, { trial: true }), 422, 'VALIDATION_FAILED', 'trial');
  });
});

describe('deleting plans', () => {
  it('deletes a plan nothing refers to; a second delete is 404 PLAN_NOT_FOUND', async () => {
    const pro = await created();
    expect((await consoleRequest(t, 'DELETE', `${plans()}/${pro.id}`)).statusCode).toBe(204);
    expectRefusal(await consoleRequest(t, 'GET', `${plans()}/${pro.id}`), 404, 'PLAN_NOT_FOUND');
    expectRefusal(await consoleRequest(t, 'DELETE', `${plans()}/${pro.id}`), 404, 'PLAN_NOT_FOUND');
    // Its name is free again.
    await created();
  });
});

describe('plans across applications and owners', () => {
  it('answers 404 PLAN_NOT_FOUND for an unknown id and for another application’s plan, on every route', async () => {
    const other = await createApplication(t, { name: 'Other' });
    const theirs = await created(PRO, other.id);
    for (const id of [MISSING_ID, theirs.id]) {
      expectRefusal(await consoleRequest(t, 'GET', `${plans()}/${id}`), 404, 'PLAN_NOT_FOUND');
      expectRefusal(await consoleRequest(t, 'PATCH', `${plans()}/${id}`, { archived: true }), 404, 'PLAN_NOT_FOUND');
      expectRefusal(await consoleRequest(t, 'DELETE', `${plans()}/${id}`), 404, 'PLAN_NOT_FOUND');
    }
    expect((await consoleRequest(t, 'GET', `${plans(other.id)}/${theirs.id}`)).json()).toMatchObject({ archived: false, name: 'Pro' });
  });

  it('answers 404 APPLICATION_NOT_FOUND for another owner’s application, and leaves its plans alone', async () => {
    const otherToken = await otherOwnerToken(t);
    const theirApp = await createApplication(t, { name: 'Theirs' }, otherToken);
    const theirPlan = await t.inject({ method: 'POST', url: `/api/console${plans(theirApp.id)}`, headers: bearerOf(otherToken), payload: PRO });
    expect(theirPlan.statusCode).toBe(201);
    const id = theirPlan.json<{ id: string }>().id;
    const requests: Array<[string, string, unknown]> = [
      ['GET', plans(theirApp.id), undefined],
      ['POST', plans(theirApp.id), { ...PRO, name: 'Mine' }],
      ['GET', `${plans(theirApp.id)}/${id}`, undefined],
      ['PATCH', `${plans(theirApp.id)}/${id}`, { archived: true }],
      ['DELETE', `${plans(theirApp.id)}/${id}`, undefined],
    ];
    for (const [method, url, payload] of requests) {
      expectRefusal(await consoleRequest(t, method as 'GET', url, payload), 404, 'APPLICATION_NOT_FOUND');
    }
    const kept = await t.inject({ method: 'GET', url: `/api/console${plans(theirApp.id)}`, headers: bearerOf(otherToken) });
    expect(kept.json()).toEqual([expect.objectContaining({ id, name: 'Pro', archived: false, created_at: expect.stringMatching(ISO) })]);
  });

  it('refuses a request without a console token with 401', async () => {
    const res = await t.inject({ method: 'GET', url: `/api/console${plans()}` });
    expect(res.statusCode).toBe(401);
  });
});
