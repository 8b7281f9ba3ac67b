// GET /api/console/applications/{app_id}/overview: the dashboard's figures of one application,
// with the sign-ups and logins of the last 30 UTC days, as users arrive and log in over days.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, T0, consoleRequest, createApplication, createLicenses, startTestApp } from '../support/test-app.js';
import { multipartBody, processAll } from '../support/files.js';
import { bearer, call, member, signUp, token } from '../support/integration.js';
import { MISSING_ID, bearerOf, browserSignIn, otherOwnerToken } from './console-helpers.js';

const DAY = 86_400_000;

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

interface Day {
  date: string;
  sign_ups: number;
  logins: number;
}

const overviewOf = async (appId: string) => {
  const res = await consoleRequest(t, 'GET', `/applications/${appId}/overview`);
  expect(res.statusCode).toBe(200);
  return res.json<{ users: number; active_memberships: number; licenses: { used: number; unused: number }; storage_bytes: number; daily: Day[] }>();
};

/** The days with any activity, as `date: sign_ups/logins`. */
const activeDays = (daily: Day[]) => daily.filter((d) => d.sign_ups > 0 || d.logins > 0).map((d) => `${d.date}: ${d.sign_ups}/${d.logins}`);

describe('the application overview', () => {
  it('starts at zero, with 30 zero-filled days ending today', async () => {
    const app = await createApplication(t);
    const overview = await overviewOf(app.id);
    expect(Object.keys(overview).sort()).toEqual(['active_memberships', 'daily', 'licenses', 'storage_bytes', 'users']);
    expect(overview).toMatchObject({ users: 0, active_memberships: 0, licenses: { used: 0, unused: 0 }, storage_bytes: 0 });
    expect(overview.daily).toHaveLength(30);
    expect(overview.daily[0]).toEqual({ date: '2026-05-10', sign_ups: 0, logins: 0 });
    expect(overview.daily[29]).toEqual({ date: '2026-06-08', sign_ups: 0, logins: 0 });
  });

  it('counts users, memberships, licenses, stored bytes, and sign-ups and logins by day', async () => {
    const app = await createApplication(t, { device_auth: false, default_allowed_sessions: 50 });
    const password = 'correct horse battery';

    t.clock.set(T0 - 5 * DAY);
    await member(t, app, 'alice', password, null);
    await member(t, app, 'bob', password, 60);
    const first = await token(t, app, { username: 'alice', password });
    await token(t, app, { username: 'alice', password });
    // A session that ended (logout) was still a login.
    expect((await call(t, app, 'POST', '/auth/logout', undefined, { headers: bearer(first) })).statusCode).toBe(204);

    t.clock.set(T0 - 2 * DAY + 3 * 3_600_000);
    await signUp(t, app, 'carol', password);
    await token(t, app, { username: 'alice', password });
    // Refused logins open no session.
    expect((await call(t, app, 'POST', '/auth/login', { credentials: { username: 'carol', password } })).statusCode).toBe(403);
    expect((await call(t, app, 'POST', '/auth/login', { credentials: { username: 'alice', password: 'wrong password!' } })).statusCode).toBe(401);

    t.clock.set(T0);
    await member(t, app, 'dave', password, 60);
    await token(t, app, { username: 'dave', password });
    await createLicenses(t, app.id, 2, 30);
    // The dashboard's upload: cookie, CSRF token and multipart form.
    const session = await browserSignIn(t);
    const { payload, headers } = multipartBody([
      ['name', 'build.bin'],
      ['is_public', 'false'],
      ['store_encrypted', 'true'],
      ['file', { content: Buffer.alloc(1000, 7) }],
    ]);
    const uploaded = await t.inject({ method: 'POST', url: `/api/console/applications/${app.id}/files`, headers: { ...headers, cookie: session.cookie, 'x-csrf-token': session.csrf }, payload });
    expect(uploaded.statusCode).toBe(201);
    await processAll(t);

    const overview = await overviewOf(app.id);
    // alice is lifetime and dave has an hour left; bob's hour ran out days ago; carol never paid.
    expect(overview).toMatchObject({ users: 4, active_memberships: 2, licenses: { used: 3, unused: 2 }, storage_bytes: 1000 });
    expect(overview.daily).toHaveLength(30);
    expect(overview.daily[29]?.date).toBe('2026-06-08');
    expect(activeDays(overview.daily)).toEqual(['2026-06-03: 2/2', '2026-06-06: 1/1', '2026-06-08: 1/1']);

    // The next day the window moves on: yesterday keeps its figures, today starts at zero.
    t.clock.advance(DAY);
    const tomorrow = await overviewOf(app.id);
    expect(tomorrow.daily[29]).toEqual({ date: '2026-06-09', sign_ups: 0, logins: 0 });
    expect(activeDays(tomorrow.daily)).toEqual(['2026-06-03: 2/2', '2026-06-06: 1/1', '2026-06-08: 1/1']);
    expect(tomorrow.active_memberships).toBe(1);

    // Thirty days on, the first day has left the window; the totals stay.
    t.clock.set(T0 + 25 * DAY);
    const later = await overviewOf(app.id);
    expect(activeDays(later.daily)).toEqual(['2026-06-06: 1/1', '2026-06-08: 1/1']);
    expect(later.users).toBe(4);
  });

  it("answers 404 for another owner's application and a missing one, 422 for a malformed id, 401 without a token", async () => {
    const theirs = await createApplication(t, {}, await otherOwnerToken(t));
    for (const id of [theirs.id, MISSING_ID]) {
      const res = await consoleRequest(t, 'GET', `/applications/${id}/overview`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error_code).toBe('APPLICATION_NOT_FOUND');
    }
    expect((await consoleRequest(t, 'GET', '/applications/not-a-uuid/overview')).statusCode).toBe(422);
    expect((await t.inject({ method: 'GET', url: `/api/console/applications/${theirs.id}/overview` })).statusCode).toBe(401);
    // The owner's own browser session reads it with the cookie alone.
    const mine = await createApplication(t);
    const session = await browserSignIn(t);
    expect((await t.inject({ method: 'GET', url: `/api/console/applications/${mine.id}/overview`, headers: { cookie: session.cookie } })).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: `/api/console/applications/${theirs.id}/overview`, headers: { cookie: session.cookie } })).statusCode).toBe(404);
    expect((await t.inject({ method: 'GET', url: `/api/console/applications/${mine.id}/overview`, headers: bearerOf(t.ownerToken) })).statusCode).toBe(200);
  });
});
