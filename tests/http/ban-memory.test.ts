// The ban memory (docs/choices.md, "Bans"): each instance remembers which bans match a caller's
// identifiers while the application's bans_version stands. A ban made, lifted or written straight
// into the database bites (or stops biting) on the very next request, and a remembered ban that
// expires stops matching then, with nothing written.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ban, bearer, call, expectError, member, token, type TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, startTestApp, T0, type TestApp } from '../support/test-app.js';
import { sqlBehindTheServer } from '../support/sql-behind-the-server.js';

let t: TestApp;
let app: TestApplication;
let tok: string;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false, ban_propagation: false });
  const u = await member(t, app, 'remy', undefined, 600);
  tok = await token(t, app, { username: 'remy', password: u.password });
});
afterEach(() => t.close());

const context = (ip: string) => call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok), ip });

describe('the ban memory', () => {
  it('a ban made and lifted through the console bites and stops on the next request, while clean answers are remembered', async () => {
    // Remembered: the same caller twice, and a second caller beside it.
    for (let i = 0; i < 2; i++) {
      expect((await context('10.9.0.1')).statusCode).toBe(200);
      expect((await context('10.9.0.2')).statusCode).toBe(200);
    }
    const made = await ban(t, app, 'ip', '10.9.0.1');
    expectError(await context('10.9.0.1'), 403, 'BANNED');
    expect((await context('10.9.0.2')).statusCode).toBe(200);
    expectError(await context('10.9.0.1'), 403, 'BANNED');
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${made.id}`)).statusCode).toBe(204);
    expect((await context('10.9.0.1')).statusCode).toBe(200);
    // The other remembered caller too.
    await ban(t, app, 'ip', '10.9.0.2');
    expectError(await context('10.9.0.2'), 403, 'BANNED');
    expect((await context('10.9.0.1')).statusCode).toBe(200);
  });

  it('a ban written straight into the database, past the server, bites on the next request; deleting it there lifts it', async () => {
    const base = await t.http.listen({ host: '127.0.0.1', port: 0 });
    // Over a real socket, as a client's next request comes (the content cache's test says why).
    const overSocket = async () => (await fetch(`${base}/api/integration/app_context`, { headers: { ...app.headers, ...bearer(tok) } })).status;
    expect(await overSocket()).toBe(200);
    expect(await overSocket()).toBe(200);
    await sqlBehindTheServer(t, `insert into bans (id, application_id, type, value, reason, created_at) values ('by-hand', '${app.id}', 'ip', '127.0.0.1', null, ${T0})`);
    expect(await overSocket()).toBe(403);
    await sqlBehindTheServer(t, `delete from bans where id = 'by-hand'`);
    expect(await overSocket()).toBe(200);
  });

  it('a remembered ban that expires stops matching at its expiry, with nothing written', async () => {
    await sqlBehindTheServer(
      t,
      `insert into bans (id, application_id, type, value, reason, created_at, expires_at) values ('brief', '${app.id}', 'ip', '10.9.0.3', null, ${T0}, ${t.clock.now() + 60_000})`,
    );
    expectError(await context('10.9.0.3'), 403, 'BANNED');
    t.clock.advance(59_000);
    expectError(await context('10.9.0.3'), 403, 'BANNED');
    t.clock.advance(1_000);
    expect((await context('10.9.0.3')).statusCode).toBe(200);
  });
});
