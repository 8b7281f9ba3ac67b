// Issue 39, items 13 and 22, on both backends. An offline license file holds its machine's device
// slot until it expires, whatever a reset or an owner's removal does to the device row (the
// review's three machines with valid files on a one-device license); and the admin key issues
// files no longer than the application's license_file_ttl_minutes, each recorded with that key.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, expectError, login, member, token, type TestApplication } from '../support/integration.js';
import { shown } from '../support/shown-events.js';

const HOUR = 3_600_000;
let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ passwordQueue: 1000, limits: { lockoutThreshold: 50, ipFailureLimit: 1000, accountFailureLimit: 1000 } });
});
afterEach(() => t.close());

type App = TestApplication & { credentials: { admin_api_key: string } };

/** A one-device application whose files last an hour and whose users may reset hourly. */
const oneDevice = () =>
  createApplication(t, { device_auth: true, default_allowed_devices: 1, default_allowed_sessions: 5, license_file_ttl_minutes: 60, device_reset_cooldown_hours: 1 }) as Promise<App>;

const fileFor = async (app: App, who: { username: string; password: string }, hardwareId: string) => {
  const tok = await token(t, app, who, { hardware_id: hardwareId });
  return call(t, app, 'POST', '/license_file', { hardware_id: hardwareId }, { headers: bearer(tok) });
};
const reset = (app: App, who: { username: string; password: string }) => call(t, app, 'POST', '/reset_devices', who);
const userPage = async (app: App, id: string) => (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${id}`)).json();

describe('a license file keeps its device slot until it expires', () => {
  it("file on A, reset, B is refused a login and a file while A's file is valid; the slot is back when it lapses", async () => {
    const app = await oneDevice();
    const u = await member(t, app, 'mallory', undefined, 600, { hardware_id: 'A' });
    const who = { username: 'mallory', password: u.password };
    expect((await fileFor(app, who, 'A')).statusCode).toBe(200);

    // The attack: free the slot with a reset and take a second (then a third) machine.
    expect((await reset(app, who)).statusCode).toBe(200);
    expect((await userPage(app, u.id)).registered_devices).toEqual([]);
    expectError(await login(t, app, who, { hardware_id: 'B' }), 401, 'DEVICE_LIMIT_REACHED');
    // A may still come back: it is the machine the slot is held for.
    expect((await fileFor(app, who, 'A')).statusCode).toBe(200);
    expect((await reset(app, who)).statusCode).toBe(429);

    // Once both of A's files have lapsed (the second was issued at the same instant) and the device row is reset away, B gets the slot.
    t.clock.advance(HOUR);
    expect((await reset(app, who)).statusCode).toBe(200);
    const b = await fileFor(app, who, 'B');
    expect(b.statusCode, b.body).toBe(200);
    expectError(await login(t, app, who, { hardware_id: 'C' }), 401, 'DEVICE_LIMIT_REACHED');
  });

  it("20 machines racing after a reset: none takes the slot A's file holds; once it lapses exactly one does", async () => {
    const app = await oneDevice();
    const u = await member(t, app, 'racer', undefined, 600, { hardware_id: 'A' });
    const who = { username: 'racer', password: u.password };
    expect((await fileFor(app, who, 'A')).statusCode).toBe(200);
    expect((await reset(app, who)).statusCode).toBe(200);
    const race = () => Promise.all(Array.from({ length: 20 }, (_, i) => login(t, app, who, { hardware_id: `M-${i}` }).then((r) => r.statusCode)));
    expect(await race()).toEqual(Array(20).fill(401));
    t.clock.advance(HOUR);
    const codes = await race();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect((await userPage(app, u.id)).registered_devices).toHaveLength(1);
  });

  it('an owner removing the device frees no slot either', async () => {
    const app = await oneDevice();
    const u = await member(t, app, 'owen', undefined, 600, { hardware_id: 'A' });
    const who = { username: 'owen', password: u.password };
    expect((await fileFor(app, who, 'A')).statusCode).toBe(200);
    const [device] = (await userPage(app, u.id)).registered_devices as Array<{ id: string }>;
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${u.id}/devices/${device!.id}`)).statusCode).toBe(204);
    const refused = expectError(await login(t, app, who, { hardware_id: 'B' }), 401, 'DEVICE_LIMIT_REACHED');
    expect(refused.message).toContain('offline license file');
    const issued = await consoleRequest(t, 'POST', `/applications/${app.id}/users/${u.id}/license_files`, { hardware_id: 'B' });
    expectError(issued, 401, 'DEVICE_LIMIT_REACHED');
    t.clock.advance(HOUR);
    expect((await login(t, app, who, { hardware_id: 'B' })).statusCode).toBe(200);
  });
});

describe("the admin API issues within the application's license_file_ttl_minutes, recorded with its key", () => {
  const adminIssue = (app: App, body: Record<string, unknown>) =>
    t.inject({ method: 'POST', url: '/api/admin/license_files', headers: { authorization: `Bearer ${app.credentials.admin_api_key}` }, payload: body });

  it("a year-long file is refused; one within the setting is recorded with the key's fingerprint in the audit log", async () => {
    const app = await oneDevice();
    const u = await member(t, app, 'victim', undefined, null, { hardware_id: 'HW-1' });
    expectError(await adminIssue(app, { username_or_license_code: 'victim', hardware_id: 'HW-1', ttl_minutes: 525_600 }), 422, 'VALIDATION_FAILED');
    expectError(await adminIssue(app, { username_or_license_code: 'victim', hardware_id: 'HW-1', ttl_minutes: 61 }), 422, 'VALIDATION_FAILED');
    const res = await adminIssue(app, { username_or_license_code: 'victim', hardware_id: 'HW-1', ttl_minutes: 60 });
    expect(res.statusCode, res.body).toBe(201);
    expect(Date.parse(res.json().expires_at)).toBe(t.clock.now() + HOUR);

    const details = (await t.store.findApplication(app.id))!;
    const fingerprint = details.adminApiKeyDigest.slice(0, 12);
    const events = (await t.store.listEvents(app.id, {}, { limit: 100 })).map(shown).filter((e) => e.action === 'license_file.issued');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actor: { type: 'admin_key', id: app.id },
      target: { type: 'user', id: u.id },
      data: { license_file: { hardware_id: 'HW-1', issued_by: { type: 'admin_key', id: fingerprint } } },
    });
    // The owner's console may still choose a longer file than the setting (owners are the authority).
    const owner = await consoleRequest(t, 'POST', `/applications/${app.id}/users/${u.id}/license_files`, { hardware_id: 'HW-1', ttl_minutes: 24 * 60 });
    expect(owner.statusCode, owner.body).toBe(201);
    const byOwner = (await t.store.listEvents(app.id, {}, { limit: 100 })).map(shown).filter((e) => e.action === 'license_file.issued' && e.actor.type === 'owner');
    expect(byOwner[0]?.data).toMatchObject({ license_file: { issued_by: { type: 'owner' } } });
  });
});
