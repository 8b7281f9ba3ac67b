// The dashboard's browser session: the gh_console cookie, its 12-hour life, and the CSRF proof a
// cookie-authenticated request that changes state must carry.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, createApplication, startTestApp } from '../support/test-app.js';
import { bearerOf, browserSignIn, otherOwnerToken, setCookieOf, UUID } from './console-helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const HOURS_12 = 12 * 60 * 60_000;
const signInBody = { email: 'owner@example.com', password: 'owner-password-1' };

describe('POST /api/console/session', () => {
  it('sets an HttpOnly, SameSite=Strict cookie for the console API and answers the owner and a CSRF token', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/console/session', payload: signInBody });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['csrf_token', 'owner']);
    expect(body.owner).toEqual({ id: expect.stringMatching(UUID), email: 'owner@example.com' });
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setCookieOf(res)).toMatch(/^gh_console=gh_con_[A-Za-z0-9_-]+; Path=\/api\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    // The token lives in the cookie only: no script can read it from the body.
    expect(res.body).not.toContain('gh_con_');
  });

  it('marks the cookie Secure when a trusted proxy says the request came over HTTPS, and only then', async () => {
    await t.close();
    t = await startTestApp({ trustProxy: ['10.70.0.1'] });
    const viaProxy = await t.inject({ method: 'POST', url: '/api/console/session', payload: signInBody, headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '10.70.0.1' });
    expect(setCookieOf(viaProxy)).toMatch(/; Max-Age=43200; Secure$/);
    const spoofed = await t.inject({ method: 'POST', url: '/api/console/session', payload: signInBody, headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '10.9.9.9' });
    expect(setCookieOf(spoofed)).not.toContain('Secure');
  });

  it('GATEHOUSE_COOKIE_SECURE=always: behind a proxy that does not say it terminates TLS, the cookie is Secure and the https origin is our own', async () => {
    // The browser is on https://dash.example.com; the proxy forwards plain HTTP and says nothing.
    const fromBrowser = { host: 'dash.example.com', origin: 'https://dash.example.com' };
    // By default the server cannot know: no Secure, and the https origin reads as another site.
    expect(setCookieOf(await t.inject({ method: 'POST', url: '/api/console/session', payload: signInBody, headers: { host: 'dash.example.com' } }))).not.toContain('Secure');
    expect((await t.inject({ method: 'POST', url: '/api/console/session', payload: signInBody, headers: fromBrowser })).statusCode).toBe(403);

    await t.close();
    t = await startTestApp({ cookieSecure: 'always' });
    const res = await t.inject({ method: 'POST', url: '/api/console/session', payload: signInBody, headers: fromBrowser });
    expect(res.statusCode).toBe(200);
    expect(setCookieOf(res)).toMatch(/; Max-Age=43200; Secure$/);
    const cookie = /gh_console=([^;]+)/.exec(setCookieOf(res) ?? '')?.[1] ?? 'missing';
    // A cookie-authenticated change from the https page goes through; one from plain http is foreign.
    const headers = { ...fromBrowser, cookie: `gh_console=${cookie}`, 'x-csrf-token': res.json().csrf_token as string };
    const created = await t.inject({ method: 'POST', url: '/api/console/applications', payload: { name: 'From the dashboard' }, headers });
    expect(created.statusCode).toBe(201);
    const plain = await t.inject({ method: 'POST', url: '/api/console/applications', payload: { name: 'x' }, headers: { ...headers, origin: 'http://dash.example.com' } });
    expect(plain.statusCode).toBe(403);
    // Signing out clears it with the same flags.
    const out = await t.inject({ method: 'DELETE', url: '/api/console/session', headers });
    expect(out.statusCode).toBe(204);
    expect(setCookieOf(out)).toMatch(/Max-Age=0; Secure$/);
  });

  it('refuses wrong credentials like /login, setting no cookie', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/console/session', payload: { ...signInBody, password: 'wrong-password-1' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('INVALID_CREDENTIALS');
    expect(setCookieOf(res)).toBeUndefined();
    const malformed = await t.inject({ method: 'POST', url: '/api/console/session', payload: { email: 'owner@example.com' } });
    expect(malformed.statusCode).toBe(422);
  });

  it('shares the owner sign-in throttle with /login', async () => {
    await t.close();
    t = await startTestApp({ limits: { lockoutThreshold: 3, ipFailureLimit: 1000 } });
    for (let i = 0; i < 3; i++) {
      const url = i % 2 === 0 ? '/api/console/session' : '/api/console/login';
      expect((await t.inject({ method: 'POST', url, payload: { ...signInBody, password: 'wrong-password-1' } })).statusCode).toBe(401);
    }
    const locked = await t.inject({ method: 'POST', url: '/api/console/session', payload: signInBody });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error_code).toBe('ACCOUNT_LOCKED');
    expect(locked.headers['retry-after']).toBeDefined();
  });

  it('refuses a sign-in posted from another site', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/console/session', payload: signInBody, headers: { origin: 'https://evil.example' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error_code).toBe('CSRF_REJECTED');
    expect(setCookieOf(res)).toBeUndefined();
  });
});

describe('GET and DELETE /api/console/session', () => {
  it('GET tells who is signed in and re-issues the same CSRF token, from the cookie or a Bearer token', async () => {
    const session = await browserSignIn(t);
    const res = await t.inject({ method: 'GET', url: '/api/console/session', headers: { cookie: session.cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ owner: { id: expect.stringMatching(UUID), email: 'owner@example.com' }, csrf_token: session.csrf });
    const viaBearer = await t.inject({ method: 'GET', url: '/api/console/session', headers: bearerOf(t.ownerToken) });
    expect(viaBearer.statusCode).toBe(200);
    expect(viaBearer.json().csrf_token).not.toBe(session.csrf);
  });

  it('GET answers 401 without a session, and for cookies that are not one well-formed token', async () => {
    const session = await browserSignIn(t);
    for (const cookie of [undefined, 'gh_console=gh_con_unknown', 'gh_console="quoted"', `${session.cookie}; ${session.cookie}`, 'other=1']) {
      const res = await t.inject({ method: 'GET', url: '/api/console/session', headers: cookie === undefined ? {} : { cookie } });
      expect(res.statusCode, String(cookie)).toBe(401);
      expect(res.json().error_code).toBe('INVALID_CONSOLE_TOKEN');
    }
    // Other cookies beside ours are fine.
    const mixed = await t.inject({ method: 'GET', url: '/api/console/session', headers: { cookie: `theme=dark; ${session.cookie}; lang=en` } });
    expect(mixed.statusCode).toBe(200);
  });

  it('DELETE revokes the session and clears the cookie; it needs the CSRF token like any change', async () => {
    const session = await browserSignIn(t);
    const refused = await t.inject({ method: 'DELETE', url: '/api/console/session', headers: { cookie: session.cookie } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error_code).toBe('CSRF_REJECTED');
    const out = await t.inject({ method: 'DELETE', url: '/api/console/session', headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
    expect(out.statusCode).toBe(204);
    expect(setCookieOf(out)).toBe('gh_console=; Path=/api/console; HttpOnly; SameSite=Strict; Max-Age=0');
    const after = await t.inject({ method: 'GET', url: '/api/console/session', headers: { cookie: session.cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json().error_code).toBe('INVALID_CONSOLE_TOKEN');
  });

  it('a browser session expires 12 hours after sign-in, on the server', async () => {
    const session = await browserSignIn(t);
    t.clock.advance(HOURS_12 - 1);
    expect((await t.inject({ method: 'GET', url: '/api/console/applications', headers: { cookie: session.cookie } })).statusCode).toBe(200);
    t.clock.advance(1);
    const expired = await t.inject({ method: 'GET', url: '/api/console/applications', headers: { cookie: session.cookie } });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error_code).toBe('INVALID_CONSOLE_TOKEN');
    // Presented as a Bearer token it is just as dead; CLI tokens (from /login) do not expire.
    expect((await t.inject({ method: 'GET', url: '/api/console/applications', headers: bearerOf(session.token) })).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: '/api/console/applications', headers: bearerOf(t.ownerToken) })).statusCode).toBe(200);
  });
});

describe('cookie-authenticated console requests', () => {
  const create = (headers: Record<string, string>) => t.inject({ method: 'POST', url: '/api/console/applications', headers, payload: { name: 'From the dashboard' } });

  it('reads with the cookie alone and changes with the cookie and its CSRF token', async () => {
    const session = await browserSignIn(t);
    expect((await t.inject({ method: 'GET', url: '/api/console/applications', headers: { cookie: session.cookie } })).statusCode).toBe(200);
    expect((await t.inject({ method: 'HEAD', url: '/api/console/applications', headers: { cookie: session.cookie } })).statusCode).toBe(200);
    expect((await create({ cookie: session.cookie, 'x-csrf-token': session.csrf })).statusCode).toBe(201);
    // The server's own origin (inject's Host is localhost:80) is accepted.
    expect((await create({ cookie: session.cookie, 'x-csrf-token': session.csrf, origin: 'http://localhost' })).statusCode).toBe(201);
  });

  it("refuses a change without the CSRF token, with a wrong one, with another session's, or from a foreign origin", async () => {
    const session = await browserSignIn(t);
    const another = await browserSignIn(t);
    const cases: Array<Record<string, string>> = [
      { cookie: session.cookie },
      { cookie: session.cookie, 'x-csrf-token': 'not-the-token' },
      { cookie: session.cookie, 'x-csrf-token': `${session.csrf}x` },
      { cookie: session.cookie, 'x-csrf-token': another.csrf },
      { cookie: session.cookie, 'x-csrf-token': session.csrf, origin: 'https://evil.example' },
      { cookie: session.cookie, 'x-csrf-token': session.csrf, origin: 'http://localhost:8080' },
      { cookie: session.cookie, 'x-csrf-token': session.csrf, origin: 'null' },
    ];
    for (const headers of cases) {
      const res = await create(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().error_code).toBe('CSRF_REJECTED');
    }
    const list = await t.inject({ method: 'GET', url: '/api/console/applications', headers: { cookie: session.cookie } });
    expect(list.json()).toEqual([]);
  });

  it('an expired cookie answers 401, not 403, so the dashboard shows its sign-in page', async () => {
    const session = await browserSignIn(t);
    t.clock.advance(HOURS_12);
    const res = await create({ cookie: session.cookie });
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('INVALID_CONSOLE_TOKEN');
  });

  it('leaves Bearer requests as they were: no CSRF token, any Origin; Bearer wins over the cookie', async () => {
    expect((await create({ ...bearerOf(t.ownerToken), origin: 'https://elsewhere.example' })).statusCode).toBe(201);
    const other = await otherOwnerToken(t);
    const session = await browserSignIn(t);
    const res = await create({ ...bearerOf(other), cookie: session.cookie });
    expect(res.statusCode).toBe(201);
    const otherApps = await t.inject({ method: 'GET', url: '/api/console/applications', headers: bearerOf(other) });
    expect(otherApps.json()).toHaveLength(1);
    // A malformed Authorization header never falls back to the cookie.
    const malformed = await t.inject({ method: 'GET', url: '/api/console/applications', headers: { authorization: 'Basic abc', cookie: session.cookie } });
    expect(malformed.statusCode).toBe(401);
  });

  it("never reaches another owner's application", async () => {
    const other = await otherOwnerToken(t);
    const theirs = await createApplication(t, {}, other);
    const session = await browserSignIn(t);
    const headers = { cookie: session.cookie, 'x-csrf-token': session.csrf };
    for (const [method, url] of [
      ['GET', `/api/console/applications/${theirs.id}`],
      ['GET', `/api/console/applications/${theirs.id}/overview`],
      ['DELETE', `/api/console/applications/${theirs.id}`],
    ] as const) {
      const res = await t.inject({ method, url, headers });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error_code).toBe('APPLICATION_NOT_FOUND');
    }
    expect((await t.inject({ method: 'GET', url: `/api/console/applications/${theirs.id}`, headers: bearerOf(other) })).statusCode).toBe(200);
  });

  it('logout with the cookie revokes the browser session too', async () => {
    const session = await browserSignIn(t);
    expect((await t.inject({ method: 'POST', url: '/api/console/logout', headers: { cookie: session.cookie } })).statusCode).toBe(403);
    expect((await t.inject({ method: 'POST', url: '/api/console/logout', headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } })).statusCode).toBe(204);
    expect((await t.inject({ method: 'GET', url: '/api/console/session', headers: { cookie: session.cookie } })).statusCode).toBe(401);
  });
});
