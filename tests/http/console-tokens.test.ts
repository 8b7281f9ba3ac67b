// The life-cycle of console tokens: Bearer tokens expire after an idle time that each use
// extends; browser sessions keep their fixed 12 hours.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/test-app.js';
import { bearerOf, browserSignIn } from './console-helpers.js';

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
