// A user's own devices (docs/machines.md, "Devices"; docs/api.md, GET and DELETE /devices): what a
// machine says about itself, when it was last seen, and dropping one under the reset cooldown.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, expectError, login, member, token, type TestApplication } from '../support/integration.js';
import { rowsBehindTheServer, sqlBehindTheServer } from '../support/sql-behind-the-server.js';

let t: TestApp;
let app: TestApplication;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const laptop = { hardware_id: 'HW-1', device: { name: '  My laptop ', platform: 'linux', app_version: '1.2.3' } };

beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 3, default_allowed_sessions: 5, device_reset_cooldown_hours: 24 });
});
afterEach(() => t.close());

const devices = (tok: string, on = app) => call(t, on, 'GET', '/devices', undefined, { headers: bearer(tok) });
const drop = (tok: string, id: string, on = app) => call(t, on, 'DELETE', `/devices/${id}`, undefined, { headers: bearer(tok) });
const userPage = async (id: string, on = app) => (await consoleRequest(t, 'GET', `/applications/${on.id}/users/${id}`)).json();
const alice = { username: 'alice', password: 'correct horse battery' };

describe('the device object on login and sign-up', () => {
  it('is saved trimmed and shown to the user (without address) and to the owner (with it)', async () => {
    const user = await member(t, app, 'alice', alice.password, 60, { hardware_id: 'HW-1' });
    const tok = await token(t, app, alice, laptop);
    const res = await devices(tok);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: expect.any(String), name: 'My laptop', platform: 'linux', app_version: '1.2.3', first_seen_at: '2026-06-08T12:00:00.000Z', last_seen_at: '2026-06-08T12:00:00.000Z', current: true },
    ]);
    const [shown] = (await userPage(user.id)).registered_devices;
    expect(shown).toMatchObject({ hardware_id: 'HW-1', name: 'My laptop', platform: 'linux', app_version: '1.2.3', last_ip: '127.0.0.1' });
  });

  it('updates only the fields given; an empty one clears it', async () => {
    await member(t, app, 'alice', alice.password, 60, { hardware_id: 'HW-1' });
    await token(t, app, alice, laptop);
    await token(t, app, alice, { hardware_id: 'HW-1', device: { app_version: '2.0.0' } });
    const tok = await token(t, app, alice, { hardware_id: 'HW-1', device: { platform: '   ' } });
    expect((await devices(tok)).json()[0]).toMatchObject({ name: 'My laptop', platform: null, app_version: '2.0.0' });
  });

  it('sign-up with a license code takes it too', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    const res = await call(t, app, 'POST', '/sign_up_with_license_code', { code, hardware_id: 'HW-9', device: { name: 'Desk' } });
    expect(res.statusCode).toBe(201);
    const tok = await token(t, app, { code: code as string }, { hardware_id: 'HW-9' });
    expect((await devices(tok)).json()).toMatchObject([{ name: 'Desk', current: true }]);
  });

  it('control characters and over-long fields: 422 naming the field, and nothing is written', async () => {
    await member(t, app, 'alice', alice.password, 60, { hardware_id: 'HW-1' });
    const cases: Array<[Record<string, string>, string]> = [
      [{ name: 'bad\u0000name' }, 'device.name'],
      [{ name: 'line\nbreak' }, 'device.name'],
      [{ platform: 'a\u007f' }, 'device.platform'],
      [{ name: 'x'.repeat(101) }, 'device.name'],
      [{ platform: 'p'.repeat(51) }, 'device.platform'],
      [{ app_version: 'v'.repeat(51) }, 'device.app_version'],
    ];
    for (const [device, field] of cases) {
      const body = expectError(await login(t, app, alice, { hardware_id: 'HW-1', device }), 422, 'VALIDATION_FAILED') as unknown as { errors: Array<{ field: string }> };
      expect(body.errors.map((e) => e.field)).toEqual([field]);
      expectError(await signUp422(device), 422, 'VALIDATION_FAILED');
    }
    // At the bounds it is taken.
    const tok = await token(t, app, alice, { hardware_id: 'HW-1', device: { name: 'é'.repeat(100), platform: 'p'.repeat(50) } });
    expect((await devices(tok)).json()[0]).toMatchObject({ name: 'é'.repeat(100), platform: 'p'.repeat(50), app_version: null });
  });

  it('last_seen_at moves at most once a minute, with the address it came from', async () => {
    const user = await member(t, app, 'alice', alice.password, 60, { hardware_id: 'HW-1' });
    const seen = async () => (await userPage(user.id)).registered_devices[0] as { last_seen_at: string; last_ip: string };
    await login(t, app, alice, { hardware_id: 'HW-1' }, { ip: '10.0.0.1' });
    t.clock.advance(30_000);
    await login(t, app, alice, { hardware_id: 'HW-1' }, { ip: '10.0.0.1' });
    expect((await seen()).last_seen_at).toBe('2026-06-08T12:00:00.000Z');
    t.clock.advance(MINUTE - 30_000 - 1);
    await login(t, app, alice, { hardware_id: 'HW-1' }, { ip: '10.0.0.1' });
    expect((await seen()).last_seen_at).toBe('2026-06-08T12:00:00.000Z');
    t.clock.advance(1);
    await login(t, app, alice, { hardware_id: 'HW-1' }, { ip: '10.0.0.2' });
    expect(await seen()).toMatchObject({ last_seen_at: '2026-06-08T12:01:00.000Z', last_ip: '10.0.0.2' });
  });
});

describe('legacy header authentication', () => {
  it('moves last_seen_at at most once a minute too, and marks the header’s machine current', async () => {
    const legacy = await createApplication(t, { device_auth: true, legacy_auth: true, default_allowed_devices: 3, default_allowed_sessions: 5 });
    const user = await member(t, legacy, 'alice', alice.password, null, { hardware_id: 'HW-1' });
    const headers = { 'x-api-username': 'alice', 'x-api-password': alice.password, 'x-hardware-id': 'HW-1' };
    const seen = async () => (await userPage(user.id, legacy)).registered_devices[0] as { last_seen_at: string; last_ip: string | null };
    t.clock.advance(MINUTE - 1);
    expect((await call(t, legacy, 'GET', '/devices', undefined, { headers, ip: '10.0.0.7' })).json()).toMatchObject([{ current: true }]);
    expect((await seen()).last_seen_at).toBe('2026-06-08T12:00:00.000Z');
    t.clock.advance(1);
    await call(t, legacy, 'GET', '/devices', undefined, { headers, ip: '10.0.0.7' });
    expect(await seen()).toMatchObject({ last_seen_at: '2026-06-08T12:01:00.000Z', last_ip: '10.0.0.7' });
  });
});

async function signUp422(device: Record<string, string>) {
  return call(t, app, 'POST', '/sign_up', { username: 'newcomer', password: alice.password, hardware_id: 'HW-5', device });
}

describe('GET and DELETE /api/integration/devices', () => {
  it('lists the user’s devices, the calling one marked current; other users’ are not shown', async () => {
    await member(t, app, 'alice', alice.password, 60, { hardware_id: 'HW-1' });
    await member(t, app, 'bob', alice.password, 60, { hardware_id: 'HW-B' });
    t.clock.advance(1000);
    const tok2 = await token(t, app, alice, { hardware_id: 'HW-2', device: { name: 'Second' } });
    const list = (await devices(tok2)).json<Array<{ name: string | null; current: boolean }>>();
    expect(list.map((d) => [d.name, d.current])).toEqual([
      [null, false],
      ['Second', true],
    ]);
    expectError(await call(t, app, 'GET', '/devices'), 401, 'LOGIN_REQUIRED');
  });

  it('dropping a device ends its sessions at once (401), keeps the others, and counts as a reset (429 inside the cooldown)', async () => {
    const user = await member(t, app, 'alice', alice.password, null, { hardware_id: 'HW-1' });
    const tok1 = await token(t, app, alice, { hardware_id: 'HW-1' });
    t.clock.advance(1000);
    const tok2 = await token(t, app, alice, { hardware_id: 'HW-2' });
    const [first, second] = (await devices(tok1)).json<Array<{ id: string }>>();
    expect((await drop(tok1, second!.id)).statusCode).toBe(204);
    expectError(await devices(tok2), 401, 'SESSION_EXPIRED');
    expect((await devices(tok1)).json()).toHaveLength(1);
    expect(await userPage(user.id)).toMatchObject({ last_device_reset_at: '2026-06-08T12:00:01.000Z', next_device_reset_at: '2026-06-09T12:00:01.000Z' });
    t.clock.advance(HOUR);
    const again = await token(t, app, alice, { hardware_id: 'HW-1' });
    const refused = expectError(await drop(again, first!.id), 429, 'RESET_COOLDOWN') as unknown as { next_reset_at: string };
    expect(refused.next_reset_at).toBe('2026-06-09T12:00:01.000Z');
    // The refusal changed nothing.
    expect((await devices(again)).json()).toHaveLength(1);
    t.clock.advance(23 * HOUR);
    const later = await token(t, app, alice, { hardware_id: 'HW-1' });
    expect((await drop(later, first!.id)).statusCode).toBe(204);
    expectError(await devices(later), 401, 'SESSION_EXPIRED');
  });

  it('dropping a device revokes the refresh tokens of that machine only, and says the user dropped it', async () => {
    const user = await member(t, app, 'alice', alice.password, null, { hardware_id: 'HW-1' });
    const tok = await token(t, app, alice, { hardware_id: 'HW-2' });
    const refresh = (id: string, hw: string) =>
      `('${id}', '${app.id}', '${user.id}', 'family-${id}', '${hw}', 'digest-${id}', NULL, ${Date.parse('2026-06-08T12:00:00.000Z')}, ${Date.parse('2026-07-08T12:00:00.000Z')}, NULL, NULL)`;
    // Refresh tokens as a remembered login leaves them (written behind the server: no route issues them here).
    await sqlBehindTheServer(
      t,
      `INSERT INTO refresh_tokens (id, application_id, user_id, family_id, hardware_id, token_digest, session_id, issued_at, expires_at, spent_at, revoked_at) VALUES ${refresh('r1', 'HW-1')}, ${refresh('r2', 'HW-2')}`,
    );
    const second = (await devices(tok)).json<Array<{ id: string; current: boolean }>>().find((d) => d.current)!;
    expect((await drop(tok, second.id)).statusCode).toBe(204);
    const rows = await rowsBehindTheServer<{ id: string; revoked_at: unknown }>(t, 'SELECT id, revoked_at FROM refresh_tokens ORDER BY id');
    expect(rows.map((r) => [r.id, r.revoked_at === null ? null : Number(r.revoked_at)])).toEqual([
      ['r1', null],
      ['r2', Date.parse('2026-06-08T12:00:00.000Z')],
    ]);
    const audit = (await consoleRequest(t, 'GET', `/applications/${app.id}/audit?action=device.removed`)).json();
    expect(JSON.stringify(audit)).toContain('"reason":"user"');
  });

  it('another user’s device, an unknown id and another application’s device: 404 DEVICE_NOT_FOUND', async () => {
    await member(t, app, 'alice', alice.password, 60, { hardware_id: 'HW-1' });
    await member(t, app, 'bob', alice.password, 60, { hardware_id: 'HW-B' });
    const other = await createApplication(t, { device_auth: true, device_reset_cooldown_hours: 24 });
    await member(t, other, 'alice', alice.password, 60, { hardware_id: 'HW-1' });
    const mine = await token(t, app, alice, { hardware_id: 'HW-1' });
    const bobs = await token(t, app, { username: 'bob', password: alice.password }, { hardware_id: 'HW-B' });
    const foreign = await token(t, other, alice, { hardware_id: 'HW-1' });
    const bobDevice = (await devices(bobs)).json<Array<{ id: string }>>()[0]!.id;
    const foreignDevice = (await devices(foreign, other)).json<Array<{ id: string }>>()[0]!.id;
    expectError(await drop(mine, bobDevice), 404, 'DEVICE_NOT_FOUND');
    expectError(await drop(mine, foreignDevice), 404, 'DEVICE_NOT_FOUND');
    expectError(await drop(mine, '6f1c0a52-3d8e-4c1b-9a57-0d2f3e4b5c6d'), 404, 'DEVICE_NOT_FOUND');
    // Nothing was dropped and no cooldown started.
    expect((await devices(bobs)).json()).toHaveLength(1);
    expect((await devices(foreign, other)).json()).toHaveLength(1);
    expect((await drop(mine, (await devices(mine)).json<Array<{ id: string }>>()[0]!.id)).statusCode).toBe(204);
  });

  it('with device reset off, dropping is refused as a reset is (403 RESET_DISABLED)', async () => {
    const off = await createApplication(t, { device_auth: true });
    await member(t, off, 'alice', alice.password, 60, { hardware_id: 'HW-1' });
    const tok = await token(t, off, alice, { hardware_id: 'HW-1' });
    const [device] = (await devices(tok, off)).json<Array<{ id: string }>>();
    expectError(await drop(tok, device!.id, off), 403, 'RESET_DISABLED');
    expect((await devices(tok, off)).json()).toHaveLength(1);
  });
});
