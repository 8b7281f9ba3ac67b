// The content cache (docs/choices.md, "The content cache"): app_context serves an application's
// variables, announcements and files from memory, and every change to them, however it is made,
// is served on the very next request.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, call, member, token, type TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, startTestApp, T0, type TestApp } from '../support/test-app.js';
import { sqlBehindTheServer } from '../support/sql-behind-the-server.js';

const announcement = { content_html: '<p>hi</p>', status: 'PUBLISHED', publish_from: new Date(T0 - 3_600_000).toISOString() };

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { anonymous_access: true });
});
afterEach(() => t.close());

const context = async () => {
  const res = await call(t, app, 'GET', '/app_context');
  expect(res.statusCode).toBe(200);
  const body = res.json<{ application: { variables: Array<{ name: string; value: string }> }; announcements: Array<{ title: string }> }>();
  return { variables: body.application.variables, announcements: body.announcements };
};

describe('the content cache', () => {
  it('every change to variables and announcements is served on the next app_context', async () => {
    expect((await context()).variables).toEqual([]);
    await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/version`, { value: '1.0.0', is_public: true });
    expect((await context()).variables).toEqual([{ name: 'version', value: '1.0.0' }]);
    // Cached now: the same answer again, and then a replacement.
    expect((await context()).variables).toEqual([{ name: 'version', value: '1.0.0' }]);
    await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/version`, { value: '1.0.1', is_public: true });
    expect((await context()).variables).toEqual([{ name: 'version', value: '1.0.1' }]);
    await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/version`, { value: '1.0.1', is_public: false });
    expect((await context()).variables).toEqual([]);
    await consoleRequest(t, 'DELETE', `/applications/${app.id}/variables/version`);
    expect((await context()).variables).toEqual([]);

    const created = await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, { ...announcement, title: 'Hello' });
    expect(created.statusCode).toBe(201);
    expect((await context()).announcements.map((a) => a.title)).toEqual(['Hello']);
    const id = created.json().id as string;
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}/announcements/${id}`, { title: 'Hello again' })).statusCode).toBe(200);
    expect((await context()).announcements.map((a) => a.title)).toEqual(['Hello again']);
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/announcements/${id}`)).statusCode).toBe(204);
    expect((await context()).announcements).toEqual([]);
  });

  it('a change written straight into the database, past the server, is served on the next request too', async () => {
    // Over a real socket, as a client's next request comes: SQLite's remembered reads ask the
    // file whether it changed once an event-loop turn, and a request sent after the write is read
    // from its socket in a later turn than the write (docs/choices.md, "The content cache").
    const base = await t.http.listen({ host: '127.0.0.1', port: 0 });
    const overSocket = async () => {
      const res = await fetch(`${base}/api/integration/app_context`, { headers: app.headers });
      expect(res.status).toBe(200);
      return ((await res.json()) as { application: { variables: Array<{ name: string; value: string }> } }).application.variables;
    };
    await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/channel`, { value: 'stable', is_public: true });
    expect(await overSocket()).toEqual([{ name: 'channel', value: 'stable' }]);
    await sqlBehindTheServer(t, `update variables set value = 'beta' where application_id = '${app.id}' and name = 'channel'`);
    expect(await overSocket()).toEqual([{ name: 'channel', value: 'beta' }]);
  });

  it('another application keeps its own content, and deleting an application with content works', async () => {
    const other = await createApplication(t, { anonymous_access: true });
    await consoleRequest(t, 'PUT', `/applications/${other.id}/variables/mine`, { value: 'other', is_public: true });
    await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/mine`, { value: 'this', is_public: true });
    await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, { ...announcement, title: 'Bye' });
    expect((await context()).variables).toEqual([{ name: 'mine', value: 'this' }]);
    expect((await call(t, other, 'GET', '/app_context')).json().application.variables).toEqual([{ name: 'mine', value: 'other' }]);
    // The cascade deletes the content, whose triggers bump the version of the row going away.
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}`)).statusCode).toBe(204);
    expect((await call(t, app, 'GET', '/app_context')).statusCode).toBe(401);
    expect((await call(t, other, 'GET', '/app_context')).json().application.variables).toEqual([{ name: 'mine', value: 'other' }]);
  });

  it('members and anonymous callers, taking turns on one cached content, each get their own serialised answer', async () => {
    const open = await createApplication(t, { anonymous_access: false, device_auth: false });
    await consoleRequest(t, 'PUT', `/applications/${open.id}/variables/public`, { value: 'for all', is_public: true });
    await consoleRequest(t, 'PUT', `/applications/${open.id}/variables/private`, { value: 'members "only"\n', is_public: false });
    await consoleRequest(t, 'POST', `/applications/${open.id}/announcements`, { ...announcement, title: 'Up soon', publish_from: new Date(T0 + 60_000).toISOString() });
    const u = await member(t, open, 'carol');
    const tok = await token(t, open, { username: 'carol', password: u.password });
    await consoleRequest(t, 'PATCH', `/applications/${open.id}`, { anonymous_access: true });
    const asMember = () => call(t, open, 'GET', '/app_context', undefined, { headers: bearer(tok) });
    const asAnonymous = () => call(t, open, 'GET', '/app_context');
    for (let round = 0; round < 2; round++) {
      const m = await asMember();
      expect(m.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(m.json().application.variables).toEqual([
        { name: 'private', value: 'members "only"\n' },
        { name: 'public', value: 'for all' },
      ]);
      expect(m.json().user).toBeNull();
      const a = await asAnonymous();
      expect(a.json().application.variables).toEqual([{ name: 'public', value: 'for all' }]);
      expect(a.body).not.toContain('members');
      expect(a.json().server_time).toBe(new Date(t.clock.now()).toISOString());
    }
    // What is live is decided per request, from serialised announcements: this one goes live.
    expect((await asAnonymous()).json().announcements).toEqual([]);
    t.clock.advance(60_000);
    expect((await asAnonymous()).json().announcements.map((x: { title: string }) => x.title)).toEqual(['Up soon']);
  });
});
