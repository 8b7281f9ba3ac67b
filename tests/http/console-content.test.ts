import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { T0, type TestApp, consoleRequest, createApplication, startTestApp } from '../support/test-app.js';
import { MISSING_ID, UUID, otherOwnerToken } from './console-helpers.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { anonymous_access: true });
});
afterEach(async () => {
  await t.close();
});

const context = () => t.inject({ method: 'GET', url: '/api/integration/app_context', headers: app.headers });
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

describe('variables', () => {
  it('puts, replaces, lists and deletes variables', async () => {
    const put = await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/motd`, { value: 'hello', is_public: true });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ name: 'motd', value: 'hello', is_public: true });

    const replaced = await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/motd`, { value: 'bye', is_public: false });
    expect(replaced.json()).toEqual({ name: 'motd', value: 'bye', is_public: false });
    await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/a.b-c_1`, { value: '', is_public: true });

    const list = await consoleRequest(t, 'GET', `/applications/${app.id}/variables`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([
      { name: 'a.b-c_1', value: '', is_public: true },
      { name: 'motd', value: 'bye', is_public: false },
    ]);
    // Anonymous callers see only the public one.
    expect((await context()).json().application.variables).toEqual([{ name: 'a.b-c_1', value: '' }]);

    const del = await consoleRequest(t, 'DELETE', `/applications/${app.id}/variables/motd`);
    expect(del.statusCode).toBe(204);
    const again = await consoleRequest(t, 'DELETE', `/applications/${app.id}/variables/motd`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error_code).toBe('VARIABLE_NOT_FOUND');
  });

  it.each([
    ['bad name', '/variables/has%20space', { value: 'v', is_public: true }, 'name'],
    ['missing is_public', '/variables/x', { value: 'v' }, 'is_public'],
    ['non-string value', '/variables/x', { value: 5, is_public: true }, 'value'],
    ['oversized value', '/variables/x', { value: 'v'.repeat(65_537), is_public: true }, 'value'],
    ['unknown field', '/variables/x', { value: 'v', is_public: true, secret: true }, 'secret'],
  ])('refuses a %s with 422', async (_label, path, payload, field) => {
    const res = await consoleRequest(t, 'PUT', `/applications/${app.id}${path}`, payload);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe(field);
  });

  it('takes names up to the router’s parameter limit and refuses longer ones', async () => {
    const ok = await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/${'n'.repeat(100)}`, { value: 'v', is_public: true });
    expect(ok.statusCode).toBe(200);
    // 129 characters break the name rule (422); fastify's default maxParamLength (100) may refuse
    // it first with 414. Either way nothing is stored.
    const long = await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/${'n'.repeat(129)}`, { value: 'v', is_public: true });
    expect([414, 422]).toContain(long.statusCode);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/variables`)).json()).toHaveLength(1);
  });

  it('keeps another owner’s variables out of reach', async () => {
    const theirs = await createApplication(t, { name: 'Theirs' }, await otherOwnerToken(t));
    const res = await consoleRequest(t, 'DELETE', `/applications/${theirs.id}/variables/x`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('APPLICATION_NOT_FOUND');
  });
});

describe('announcements', () => {
  const base = {
    title: 'Release 2.0',
    content_html: '<p>New!</p>',
    status: 'PUBLISHED',
    publish_from: iso(T0 - HOUR),
  };

  it('creates an announcement and shows it in the context while live', async () => {
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, base);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.stringMatching(UUID),
      title: 'Release 2.0',
      content_html: '<p>New!</p>',
      publish_from: iso(T0 - HOUR),
      publish_until: null,
      status: 'PUBLISHED',
      publication_date: '2026-06-08',
    });
    const ctx = (await context()).json();
    expect(ctx.announcements.map((a: { id: string }) => a.id)).toEqual([res.json().id]);
  });

  it('lists newest first, patches fields partially and deletes', async () => {
    const older = (await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, { ...base, title: 'Old', publish_from: iso(T0 - 2 * HOUR) })).json();
    const newer = (await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, { ...base, status: 'DRAFT', publish_until: iso(T0 + HOUR) })).json();

    const list = await consoleRequest(t, 'GET', `/applications/${app.id}/announcements`);
    expect(list.statusCode).toBe(200);
    expect(list.json().map((a: { id: string }) => a.id)).toEqual([newer.id, older.id]);

    const patched = await consoleRequest(t, 'PATCH', `/applications/${app.id}/announcements/${older.id}`, { status: 'ARCHIVED', title: 'Older' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({ ...older, status: 'ARCHIVED', title: 'Older' });

    const cleared = await consoleRequest(t, 'PATCH', `/applications/${app.id}/announcements/${newer.id}`, { publish_until: null, status: 'PUBLISHED' });
    expect(cleared.json()).toMatchObject({ publish_until: null, status: 'PUBLISHED', content_html: '<p>New!</p>' });
    expect((await context()).json().announcements.map((a: { id: string }) => a.id)).toEqual([newer.id]);

    const del = await consoleRequest(t, 'DELETE', `/applications/${app.id}/announcements/${newer.id}`);
    expect(del.statusCode).toBe(204);
    const gone = await consoleRequest(t, 'DELETE', `/applications/${app.id}/announcements/${newer.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error_code).toBe('ANNOUNCEMENT_NOT_FOUND');
    const patchGone = await consoleRequest(t, 'PATCH', `/applications/${app.id}/announcements/${MISSING_ID}`, { title: 'x' });
    expect(patchGone.statusCode).toBe(404);
  });

  it.each([
    ['an unknown status', { ...base, status: 'LIVE' }, 'status'],
    ['a malformed publish_from', { ...base, publish_from: 'yesterday' }, 'publish_from'],
    ['an end before the start', { ...base, publish_until: iso(T0 - 2 * HOUR) }, 'publish_until'],
    ['an oversized title', { ...base, title: 't'.repeat(201) }, 'title'],
    ['a blank title', { ...base, title: '   ' }, 'title'],
    ['oversized content', { ...base, content_html: 'x'.repeat(100_001) }, 'content_html'],
    ['a missing publish_from', { title: 'x', content_html: '', status: 'DRAFT' }, 'publish_from'],
    ['an unknown field', { ...base, pinned: true }, 'pinned'],
  ])('refuses %s with 422 naming the field', async (_label, payload, field) => {
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, payload);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe(field);
  });

  it('checks the merged window on patch', async () => {
    const a = (await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, { ...base, publish_until: iso(T0 + HOUR) })).json();
    const res = await consoleRequest(t, 'PATCH', `/applications/${app.id}/announcements/${a.id}`, { publish_from: iso(T0 + 2 * HOUR) });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('publish_until');
    const bad = await consoleRequest(t, 'PATCH', `/applications/${app.id}/announcements/not-an-id`, { title: 'x' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('announcement_id');
  });

  it('content_html is sanitised on write with an allow-list, on create and on PATCH alike', async () => {
    const hostile =
      '<p onclick="steal()">Hello <b>world</b><script>alert(1)</script></p>' +
      '<a href="javascript:alert(1)">bad link</a> <a href="https://example.com/notes" title="Notes">notes</a>' +
      '<img src="x" onerror="alert(1)"><iframe src="https://evil.example"></iframe>' +
      '<style>body{display:none}</style><div style="position:fixed">styled</div>' +
      '<form action="https://evil.example"><input name="password"></form><svg><script>alert(2)</script></svg>';
    const created = await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, { ...base, content_html: hostile });
    expect(created.statusCode).toBe(201);
    const kept = created.json().content_html as string;
    for (const attack of ['<script', 'onclick', 'onerror', 'javascript:', '<iframe', '<style', 'style=', '<form', '<input', '<svg', 'alert(']) {
      expect(kept.toLowerCase(), attack).not.toContain(attack);
    }
    // What an announcement needs survives: text, formatting, safe links.
    expect(kept).toContain('<p>Hello <b>world</b></p>');
    expect(kept).toContain('<a href="https://example.com/notes" title="Notes">notes</a>');
    expect(kept).toContain('<div>styled</div>');
    // Stored so: the context and the list serve the sanitised text.
    const served = (await context()).json().announcements[0].content_html;
    expect(served).toBe(kept);

    const patched = await consoleRequest(t, 'PATCH', `/applications/${app.id}/announcements/${created.json().id}`, {
      content_html: '<h2>Fixed</h2><img src="https://example.com/a.png" alt="shot" onload="x()">',
    });
    expect(patched.json().content_html).toBe('<h2>Fixed</h2><img src="https://example.com/a.png" alt="shot" />');
    expect((await context()).json().announcements[0].content_html).toBe(patched.json().content_html);
  });
});
