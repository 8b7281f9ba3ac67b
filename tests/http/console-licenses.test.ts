import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, consoleRequest, createApplication, createLicenses, startTestApp } from '../support/test-app.js';
import { ISO, UUID, bearerOf, otherOwnerToken, signUpWithCode } from './console-helpers.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t);
});
afterEach(async () => {
  await t.close();
});

const CODE = /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){5}$/;

describe('license creation', () => {
  it('issues timed licenses with readable, distinct codes', async () => {
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count: 3, minutes: 60, note: 'batch 1' });
    expect(res.statusCode).toBe(201);
    const { licenses } = res.json();
    expect(licenses).toHaveLength(3);
    for (const l of licenses) {
      expect(l).toEqual({
        id: expect.stringMatching(UUID),
        code: expect.stringMatching(CODE),
        minutes: 60,
        note: 'batch 1',
        created_at: expect.stringMatching(ISO),
        used_at: null,
        used_by_user_id: null,
        banned: false,
        plan_id: null,
        seats: 1,
        redemptions: 0,
      });
    }
    expect(new Set(licenses.map((l: { code: string }) => l.code)).size).toBe(3);
    // Stored as digest and seal only.
    const stored = await t.store.listLicenses(app.id);
    expect(JSON.stringify(stored)).not.toContain(licenses[0].code);
  });

  it('issues lifetime licenses for minutes null, without a note', async () => {
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count: 1, minutes: null });
    expect(res.statusCode).toBe(201);
    expect(res.json().licenses[0]).toMatchObject({ minutes: null, note: null });
  });

  it.each([
    ['count 0', { count: 0, minutes: 60 }, 'count'],
    ['count 10001', { count: 10_001, minutes: 60 }, 'count'],
    ['a fractional count', { count: 1.5, minutes: 60 }, 'count'],
    ['minutes 0', { count: 1, minutes: 0 }, 'minutes'],
    ['negative minutes', { count: 1, minutes: -5 }, 'minutes'],
    ['missing minutes', { count: 1 }, 'minutes'],
    ['minutes as a string', { count: 1, minutes: '60' }, 'minutes'],
    ['an oversized note', { count: 1, minutes: 60, note: 'x'.repeat(1001) }, 'note'],
    ['an unknown field', { count: 1, minutes: 60, extra: 1 }, 'extra'],
  ])('refuses %s with 422 naming the field and issues nothing', async (_label, payload, field) => {
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, payload);
    expect(res.statusCode).toBe(422);
    expect(res.json().error_code).toBe('VALIDATION_FAILED');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await t.store.listLicenses(app.id)).toHaveLength(0);
  });
});

describe('license listing and lookup', () => {
  it('lists all, used and unused licenses with their codes', async () => {
    const [used, unused] = await createLicenses(t, app.id, 2, 30);
    const userId = await signUpWithCode(t, app.headers, used!);

    const all = await consoleRequest(t, 'GET', `/applications/${app.id}/licenses`);
    expect(all.statusCode).toBe(200);
    expect(
      all
        .json()
        .map((l: { code: string }) => l.code)
        .sort(),
    ).toEqual([used, unused].sort());

    const usedList = await consoleRequest(t, 'GET', `/applications/${app.id}/licenses?status=used`);
    expect(usedList.json()).toEqual([expect.objectContaining({ code: used, used_by_user_id: userId, used_at: expect.stringMatching(ISO) })]);
    const unusedList = await consoleRequest(t, 'GET', `/applications/${app.id}/licenses?status=unused`);
    expect(unusedList.json()).toEqual([expect.objectContaining({ code: unused, used_at: null, used_by_user_id: null })]);
  });

  it('refuses an unknown status or query field with 422', async () => {
    const bad = await consoleRequest(t, 'GET', `/applications/${app.id}/licenses?status=expired`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('status');
    const extra = await consoleRequest(t, 'GET', `/applications/${app.id}/licenses?colour=red`);
    expect(extra.statusCode).toBe(422);
  });

  it('finds a license by its code, however it is typed', async () => {
    const [code] = await createLicenses(t, app.id, 1, null);
    const typed = code!.toLowerCase().replace(/-/g, '');
    const res = await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${typed}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ code, minutes: null, banned: false });
  });

  it('answers 404 for an unknown or malformed code and for another application’s code', async () => {
    const [mine] = await createLicenses(t, app.id, 1, 10);
    const other = await createApplication(t, { name: 'Other' });
    for (const code of ['ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ', 'not-a-code']) {
      const res = await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${code}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error_code).toBe('LICENSE_NOT_FOUND');
    }
    const cross = await consoleRequest(t, 'GET', `/applications/${other.id}/licenses/${mine}`);
    expect(cross.statusCode).toBe(404);
  });

  it('answers 404 for another owner’s application', async () => {
    const theirs = await createApplication(t, { name: 'Theirs' }, await otherOwnerToken(t));
    const res = await t.inject({
      method: 'GET',
      url: `/api/console/applications/${theirs.id}/licenses`,
      headers: bearerOf(t.ownerToken),
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('license deletion', () => {
  it('deletes an unused license', async () => {
    const [code] = await createLicenses(t, app.id, 1, 10);
    const res = await consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${code}`);
    expect(res.statusCode).toBe(204);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${code}`)).statusCode).toBe(404);
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${code}`)).statusCode).toBe(404);
    // A deleted code can no longer be redeemed.
    const signUp = await t.inject({
      method: 'POST',
      url: '/api/integration/sign_up_with_license_code',
      headers: app.headers,
      payload: { code, hardware_id: 'hw-1' },
    });
    expect(signUp.statusCode).toBe(422);
  });

  it('refuses to delete a used license with 409 and keeps it', async () => {
    const [code] = await createLicenses(t, app.id, 1, 10);
    await signUpWithCode(t, app.headers, code!);
    const res = await consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${code}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error_code: 'LICENSE_CONSUMED' });
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${code}`)).statusCode).toBe(200);
  });
});
