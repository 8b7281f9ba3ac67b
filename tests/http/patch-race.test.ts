// Parallel PATCHes of different fields of one application or announcement: each is one atomic
// read-merge-write, so every field changed ends up stored (none is lost to a stale merge).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { T0, type TestApp, consoleRequest, createApplication, startTestApp } from '../support/test-app.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

describe('parallel PATCHes of different fields', () => {
  it('of one application keep every field', async () => {
    // Each patch moves one field away from its value at creation (the defaults).
    const changes: Array<Record<string, unknown>> = [
      { name: 'Renamed' },
      { anonymous_access: true },
      { device_auth: false },
      { legacy_auth: true },
      { token_auth: false },
      { session_ttl_seconds: 600 },
      { default_allowed_devices: 7 },
      { default_allowed_sessions: 9 },
      { ban_propagation: false },
      { propagated_ip_ban_hours: 48 },
      { password_min_length: 12 },
    ];
    for (let round = 0; round < 3; round += 1) {
      const app = await createApplication(t);
      const results = await Promise.all(changes.map((c) => consoleRequest(t, 'PATCH', `/applications/${app.id}`, c)));
      expect(results.map((r) => r.statusCode)).toEqual(changes.map(() => 200));
      const stored = (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json();
      expect(stored).toMatchObject(Object.assign({}, ...changes));
    }
  });

  it('of one announcement keep every field', async () => {
    const app = await createApplication(t);
    // Any order of these keeps the publication window valid.
    const changes: Array<Record<string, unknown>> = [
      { title: 'Retitled' },
      { content_html: '<p>Changed</p>' },
      { status: 'ARCHIVED' },
      { publish_from: iso(T0 - HOUR) },
      { publish_until: iso(T0 + HOUR) },
    ];
    for (let round = 0; round < 5; round += 1) {
      const created = await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, {
        title: 'Original',
        content_html: '<p>Original</p>',
        status: 'DRAFT',
        publish_from: iso(T0 - 2 * HOUR),
        publish_until: null,
      });
      const id = created.json().id as string;
      const url = `/applications/${app.id}/announcements/${id}`;
      const results = await Promise.all(changes.map((c) => consoleRequest(t, 'PATCH', url, c)));
      expect(results.map((r) => r.statusCode)).toEqual(changes.map(() => 200));
      const stored = (await consoleRequest(t, 'GET', `/applications/${app.id}/announcements`)).json().find((a: { id: string }) => a.id === id);
      expect(stored).toMatchObject(Object.assign({}, ...changes));
    }
  });
});
