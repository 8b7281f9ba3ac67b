// What a token's request reads of its application, session and user may be remembered between
// requests (PostgreSQL: with the rows' versions, docs/choices.md, "Remembered access"; SQLite:
// while the file is unchanged). A change written straight into the database, past the server, as
// by hand or by another process, must still bite on the very next request: a timeout, a lapsed
// membership, a revoked session, a changed API secret, a deleted user.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, member, token, type TestApplication } from '../support/integration.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { sqlBehindTheServer } from '../support/sql-behind-the-server.js';

let t: TestApp;
let app: TestApplication;
let base: string;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false });
  base = await t.http.listen({ host: '127.0.0.1', port: 0 });
});
afterEach(() => t.close());

/** app_context over a real socket, as a client's next request comes: its status and error code. */
async function context(tok: string, headers: Record<string, string> = app.headers) {
  const res = await fetch(`${base}/api/integration/app_context`, { headers: { ...headers, ...bearer(tok) } });
  const body = (await res.json()) as { error_code?: string };
  return `${res.status}${body.error_code === undefined ? '' : ` ${body.error_code}`}`;
}

const FAR_FUTURE = 9_999_999_999_999;

describe('remembered access', () => {
  it('changes written past the server to the user, the session and the application bite on the next request', async () => {
    const u = await member(t, app, 'rita', undefined, 600);
    const tok = await token(t, app, { username: 'rita', password: u.password });
    const theUser = `application_id = '${app.id}' and username = 'rita'`;
    // Remembered: the same request twice.
    expect([await context(tok), await context(tok)]).toEqual(['200', '200']);

    await sqlBehindTheServer(t, `update users set timed_out_until = ${FAR_FUTURE}, timeout_reason = 'by hand' where ${theUser}`);
    expect(await context(tok)).toBe('403 TIMED_OUT');
    await sqlBehindTheServer(t, `update users set timed_out_until = null, timeout_reason = null where ${theUser}`);
    expect(await context(tok)).toBe('200');

    await sqlBehindTheServer(t, `update users set active_until = 1 where ${theUser}`);
    expect(await context(tok)).toBe('403 MEMBERSHIP_INACTIVE');
    await sqlBehindTheServer(t, `update users set active_until = ${FAR_FUTURE} where ${theUser}`);
    expect([await context(tok), await context(tok)]).toEqual(['200', '200']);

    // Another member's session, kept apart from the changes to Rita's.
    const v = await member(t, app, 'vic', undefined, 600);
    const other = await token(t, app, { username: 'vic', password: v.password });
    expect(await context(other)).toBe('200');
    await sqlBehindTheServer(t, `update sessions set revoked_at = 1 where user_id = (select id from users where ${theUser})`);
    expect(await context(tok)).toBe('401 SESSION_EXPIRED');
    expect(await context(other)).toBe('200');

    await sqlBehindTheServer(t, `delete from users where application_id = '${app.id}' and username = 'vic'`);
    expect(await context(other)).toBe('401 SESSION_EXPIRED');

    const w = await member(t, app, 'wes', undefined, 600);
    const third = await token(t, app, { username: 'wes', password: w.password });
    expect([await context(third), await context(third)]).toEqual(['200', '200']);
    await sqlBehindTheServer(t, `update applications set api_secret_digest = 'by-hand' where id = '${app.id}'`);
    expect(await context(third)).toBe('401 INVALID_API_CREDENTIALS');
  });
});
