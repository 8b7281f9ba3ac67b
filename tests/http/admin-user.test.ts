import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { expectError, member, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication & { credentials: { admin_api_key: string } };
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true });
});
afterEach(() => t.close());

const getUser = (key: string, who: string) => t.inject({ method: 'GET', url: `/api/admin/user/${encodeURIComponent(who)}`, headers: { authorization: `Bearer ${key}` } });

describe('GET /api/admin/user/{username_or_license_code}', () => {
  it('returns the full User object by username and by license code', async () => {
    const u = await member(t, app, 'alice', undefined, 60, { hardware_id: 'HW-A' });
    const res = await getUser(app.credentials.admin_api_key, 'alice');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      application_id: app.id,
      id: u.id,
      credential_type: 'username_password',
      username: 'alice',
      allowed_number_of_devices: 1,
      allowed_number_of_simultaneous_sessions: 1,
      registered_devices: [
        { id: expect.any(String), hardware_id: 'HW-A', registered_at: '2026-06-08T12:00:00.000Z', first_seen_at: '2026-06-08T12:00:00.000Z', last_seen_at: '2026-06-08T12:00:00.000Z' },
      ],
      membership: {
        application_id: app.id,
        user_id: u.id,
        active_until: '2026-06-08T13:00:00.000Z',
        is_lifetime: false,
        is_active: true,
        adjustments: [
          {
            id: expect.any(String),
            type: 'license',
            occurred_at: '2026-06-08T12:00:00.000Z',
            minutes: 60,
            grants_lifetime_access: false,
            revokes_lifetime_access: false,
            license_id: expect.any(String),
          },
        ],
      },
    });
    const byCode = await getUser(app.credentials.admin_api_key, u.code.toLowerCase());
    expect(byCode.statusCode).toBe(200);
    expect(byCode.json().id).toBe(u.id);
  });

  it('401 INVALID_ADMIN_API_KEY with a wrong key, and without one', async () => {
    expectError(await getUser('gh_adm_wrong', 'alice'), 401, 'INVALID_ADMIN_API_KEY');
    expectError(await t.inject({ method: 'GET', url: '/api/admin/user/alice' }), 401, 'INVALID_ADMIN_API_KEY');
  });

  it("404 USER_NOT_FOUND for an unknown user and for another application's user", async () => {
    expectError(await getUser(app.credentials.admin_api_key, 'nobody'), 404, 'USER_NOT_FOUND');
    const other = await createApplication(t, { device_auth: false });
    await member(t, other, 'bob');
    expectError(await getUser(app.credentials.admin_api_key, 'bob'), 404, 'USER_NOT_FOUND');
  });
});
