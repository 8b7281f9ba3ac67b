// The life-cycle of console tokens: Bearer tokens expire after an idle time that each use
// extends; browser sessions keep their fixed 12 hours.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/test-app.js';
import { bearerOf, browserSignIn, MISSING_ID, otherOwnerToken, UUID } from './console-helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ consoleTokenIdleHours: 24 });
});
afterEach(() => t.close());

const HOUR = 3_600_000;
const IDLE = 24 * HOUR;
const signInBody = { email: 'owner@example.com', password: 'owner-password-1' };

const login = async () => {
  const res = await t.inject({ method: 'POST', url: '/api/console/login', payload: signInBody });
  expect(res.statusCode).toBe(200);
  return res.json().token as string;
};
const listApps = (token: string) => t.inject({ method: 'GET', url: '/api/console/applications', headers: bearerOf(token) });

describe('console token idle expiry', () => {
  it('a token unused for the idle time answers 401 INVALID_CONSOLE_TOKEN', async () => {
    const token = await login();
    t.clock.advance(IDLE - 1);
    // The last millisecond still counts; this use slides the expiry, so check a fresh one below.
    const fresh = await login();
    t.clock.advance(1);
    const expired = await listApps(token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error_code).toBe('INVALID_CONSOLE_TOKEN');
    expect((await listApps(fresh)).statusCode).toBe(200);
  });

  it('each use extends it: a token used within every idle period stays valid well past it', async () => {
    const token = await login();
    for (let i = 0; i < 5; i++) {
      t.clock.advance(IDLE - HOUR);
      expect((await listApps(token)).statusCode).toBe(200);
    }
    // Five idle periods later it still works; after a whole idle period unused it does not.
    t.clock.advance(IDLE);
    expect((await listApps(token)).statusCode).toBe(401);
  });

  it('uses within a minute of the last recorded one are not written, and the expiry slides by at most that minute less', async () => {
    const token = await login();
    t.clock.advance(60_000);
    expect((await listApps(token)).statusCode).toBe(200); // recorded: last use = +1 min
    t.clock.advance(30_000);
    expect((await listApps(token)).statusCode).toBe(200); // not recorded
    t.clock.advance(IDLE - 30_000 - 1);
    expect((await listApps(token)).statusCode).toBe(200);
    t.clock.advance(IDLE);
    expect((await listApps(token)).statusCode).toBe(401);
  });

  it('the CLI bootstrap token expires the same way', async () => {
    t.clock.advance(IDLE);
    expect((await listApps(t.ownerToken)).statusCode).toBe(401);
  });

  it('a browser session keeps its fixed 12 hours: use does not extend it, and it ends even with a longer idle time', async () => {
    const { cookie } = await browserSignIn(t);
    const headers = { cookie };
    for (let i = 0; i < 11; i++) {
      t.clock.advance(HOUR);
      expect((await t.inject({ method: 'GET', url: '/api/console/session', headers })).statusCode).toBe(200);
    }
    t.clock.advance(HOUR);
    expect((await t.inject({ method: 'GET', url: '/api/console/session', headers })).statusCode).toBe(401);
  });
});

describe('GET /api/console/tokens', () => {
  it("lists the owner's live tokens with their kind and times, marking the caller's, and nobody else's", async () => {
    t.clock.advance(1000);
    const { cookie } = await browserSignIn(t);
    t.clock.advance(2 * 60_000);
    const token = await login();
    await otherOwnerToken(t);
    t.clock.advance(60_000);
    const res = await t.inject({ method: 'GET', url: '/api/console/tokens', headers: bearerOf(token) });
    expect(res.statusCode).toBe(200);
    const list = res.json<Array<Record<string, unknown>>>();
    // The CLI bootstrap token, the browser session, the new login: oldest first.
    expect(list).toHaveLength(3);
    for (const entry of list) expect(Object.keys(entry).sort()).toEqual(['created_at', 'current', 'expires_at', 'id', 'kind', 'last_used_at']);
    expect(list.map((e) => e['kind'])).toEqual(['bearer', 'cookie', 'bearer']);
    expect(list.map((e) => e['current'])).toEqual([false, false, true]);
    const [bootstrap, browser, current] = list as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    expect(bootstrap['last_used_at']).toBeNull();
    expect(bootstrap['expires_at']).toBe(new Date(Date.parse(bootstrap['created_at'] as string) + IDLE).toISOString());
    expect(browser['expires_at']).toBe(new Date(Date.parse(browser['created_at'] as string) + 12 * HOUR).toISOString());
    // This request was a use of the caller's token, a minute after its creation.
    expect(current['last_used_at']).toBe(new Date(t.clock.now()).toISOString());
    expect(current['expires_at']).toBe(new Date(t.clock.now() + IDLE).toISOString());
    expect(current['id']).toMatch(UUID);
    // The cookie sees the same list, itself current.
    const viaCookie = (await t.inject({ method: 'GET', url: '/api/console/tokens', headers: { cookie } })).json<Array<Record<string, unknown>>>();
    expect(viaCookie.map((e) => e['current'])).toEqual([false, true, false]);
  });

  it('leaves out revoked and expired tokens', async () => {
    const token = await login();
    await t.inject({ method: 'POST', url: '/api/console/logout', headers: bearerOf(await login()) });
    t.clock.advance(IDLE - HOUR);
    expect((await listApps(token)).statusCode).toBe(200);
    t.clock.advance(2 * HOUR);
    // The bootstrap token is now idle past its time; the logged-out one is revoked.
    const list = (await t.inject({ method: 'GET', url: '/api/console/tokens', headers: bearerOf(token) })).json<Array<Record<string, unknown>>>();
    expect(list.map((e) => e['current'])).toEqual([true]);
  });
});

describe('DELETE /api/console/tokens/{id}', () => {
  const idsOf = async (token: string) => (await t.inject({ method: 'GET', url: '/api/console/tokens', headers: bearerOf(token) })).json<Array<{ id: string; current: boolean }>>();

  it("revokes one of the owner's tokens: it answers 401 afterwards, the caller keeps working", async () => {
    const token = await login();
    const bootstrapId = (await idsOf(token)).find((e) => !e.current)?.id;
    const res = await t.inject({ method: 'DELETE', url: `/api/console/tokens/${bootstrapId}`, headers: bearerOf(token) });
    expect(res.statusCode).toBe(204);
    const revoked = await listApps(t.ownerToken);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error_code).toBe('INVALID_CONSOLE_TOKEN');
    expect((await listApps(token)).statusCode).toBe(200);
    // Revoking it again: it is gone.
    const again = await t.inject({ method: 'DELETE', url: `/api/console/tokens/${bootstrapId}`, headers: bearerOf(token) });
    expect(again.statusCode).toBe(404);
    expect(again.json().error_code).toBe('CONSOLE_TOKEN_NOT_FOUND');
  });

  it("answers 404 for another owner's token, which keeps working, and for a missing id", async () => {
    const other = await otherOwnerToken(t);
    const otherId = (await idsOf(other))[0]?.id;
    const res = await t.inject({ method: 'DELETE', url: `/api/console/tokens/${otherId}`, headers: bearerOf(t.ownerToken) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('CONSOLE_TOKEN_NOT_FOUND');
    expect((await listApps(other)).statusCode).toBe(200);
    expect((await t.inject({ method: 'DELETE', url: `/api/console/tokens/${MISSING_ID}`, headers: bearerOf(t.ownerToken) })).statusCode).toBe(404);
    expect((await t.inject({ method: 'DELETE', url: '/api/console/tokens/not-a-uuid', headers: bearerOf(t.ownerToken) })).statusCode).toBe(422);
  });
});

describe('POST /api/console/tokens/revoke_all', () => {
  it("signs the owner out everywhere but here; the other owner's tokens keep working", async () => {
    const { cookie } = await browserSignIn(t);
    const token = await login();
    const other = await otherOwnerToken(t);
    const res = await t.inject({ method: 'POST', url: '/api/console/tokens/revoke_all', headers: bearerOf(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ revoked: 2 });
    expect((await listApps(t.ownerToken)).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: '/api/console/session', headers: { cookie } })).statusCode).toBe(401);
    expect((await listApps(token)).statusCode).toBe(200);
    expect((await listApps(other)).statusCode).toBe(200);
  });

  it('with include_current=true signs this token out as well', async () => {
    const token = await login();
    const res = await t.inject({ method: 'POST', url: '/api/console/tokens/revoke_all?include_current=true', headers: bearerOf(token) });
    expect(res.json()).toEqual({ revoked: 2 });
    expect((await listApps(token)).statusCode).toBe(401);
    expect((await listApps(t.ownerToken)).statusCode).toBe(401);
  });

  it('refuses a body and a bad include_current with 422, revoking nothing', async () => {
    const token = await login();
    expect((await t.inject({ method: 'POST', url: '/api/console/tokens/revoke_all', headers: bearerOf(token), payload: { all: true } })).statusCode).toBe(422);
    expect((await t.inject({ method: 'POST', url: '/api/console/tokens/revoke_all?include_current=yes', headers: bearerOf(token) })).statusCode).toBe(422);
    expect((await listApps(t.ownerToken)).statusCode).toBe(200);
  });
});

describe('POST /api/console/password', () => {
  const change = (token: string, payload: Record<string, unknown>) => t.inject({ method: 'POST', url: '/api/console/password', headers: bearerOf(token), payload });

  it('sets the new password and revokes every other token of the owner; the caller keeps working', async () => {
    const { cookie } = await browserSignIn(t);
    const token = await login();
    const other = await otherOwnerToken(t);
    const res = await change(token, { current_password: 'owner-password-1', new_password: 'owner-password-2' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ revoked: 2 });
    // The old password no longer signs in; the new one does.
    const old = await t.inject({ method: 'POST', url: '/api/console/login', payload: signInBody });
    expect(old.statusCode).toBe(401);
    expect(old.json().error_code).toBe('INVALID_CREDENTIALS');
    expect((await t.inject({ method: 'POST', url: '/api/console/login', payload: { ...signInBody, password: 'owner-password-2' } })).statusCode).toBe(200);
    // Every token from before but the caller's is revoked; another owner's is untouched.
    expect((await listApps(t.ownerToken)).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: '/api/console/session', headers: { cookie } })).statusCode).toBe(401);
    expect((await listApps(token)).statusCode).toBe(200);
    expect((await listApps(other)).statusCode).toBe(200);
  });

  it('a wrong current password answers 401 INVALID_CREDENTIALS and changes nothing', async () => {
    const res = await change(t.ownerToken, { current_password: 'wrong-password-1', new_password: 'owner-password-2' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('INVALID_CREDENTIALS');
    expect((await login()).startsWith('gh_con_')).toBe(true);
    expect((await listApps(t.ownerToken)).statusCode).toBe(200);
  });

  it('is throttled like a sign-in: guesses of the current password lock the account, also for /login', async () => {
    await t.close();
    t = await startTestApp({ limits: { lockoutThreshold: 3, ipFailureLimit: 1000 } });
    for (let i = 0; i < 3; i++) {
      expect((await change(t.ownerToken, { current_password: `wrong-password-${i}`, new_password: 'owner-password-2' })).statusCode).toBe(401);
    }
    const locked = await change(t.ownerToken, { current_password: 'owner-password-1', new_password: 'owner-password-2' });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error_code).toBe('ACCOUNT_LOCKED');
    expect((await t.inject({ method: 'POST', url: '/api/console/login', payload: signInBody })).statusCode).toBe(429);
  });

  it('refuses a too short new password with 422 on new_password, before checking the current one', async () => {
    const res = await change(t.ownerToken, { current_password: 'wrong-password-1', new_password: 'short' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('new_password');
    expect((await change(t.ownerToken, { current_password: 'owner-password-1' })).statusCode).toBe(422);
    expect((await t.inject({ method: 'POST', url: '/api/console/password', payload: { current_password: 'owner-password-1', new_password: 'owner-password-2' } })).statusCode).toBe(401);
  });
});
