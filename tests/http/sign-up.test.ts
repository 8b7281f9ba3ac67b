import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, bans, call, expectError, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false, ban_propagation_to_addresses: true });
});
afterEach(() => t.close());

describe('POST /sign_up', () => {
  it('creates a user with no access until a license is activated (201)', async () => {
    const res = await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      username: 'alice',
      membership: { is_active: false, is_lifetime: false, active_until: null, plan: null, entitlements: [], in_grace: false, grace_ends_at: null },
    });
  });

  it('422 USERNAME_TAKEN for a taken username, case-insensitively', async () => {
    await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123' });
    const res = await call(t, app, 'POST', '/sign_up', { username: 'ALICE', password: 'password456' });
    const body = expectError(res, 422, 'USERNAME_TAKEN');
    expect(body).toMatchObject({ errors: [{ field: 'username' }] });
  });

  it('422 VALIDATION_FAILED for missing fields, naming them', async () => {
    const res = await call(t, app, 'POST', '/sign_up', { username: 'alice' });
    expect(expectError(res, 422, 'VALIDATION_FAILED')).toMatchObject({ errors: [{ field: 'password', message: 'is required' }] });
  });

  it('422 for a too-short password and for an over-long one, before any hashing', async () => {
    expectError(await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'short' }), 422, 'VALIDATION_FAILED');
    expectError(await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'x'.repeat(257) }), 422, 'VALIDATION_FAILED');
  });

  it('403 BANNED from a banned IP address', async () => {
    await ban(t, app, 'ip', '10.1.1.1');
    const res = await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123' }, { ip: '10.1.1.1' });
    expectError(res, 403, 'BANNED');
  });

  it('403 BANNED with a banned hardware id, even where device auth is off; the address it came from is banned by propagation', async () => {
    for (const deviceAuth of [true, false]) {
      const devApp = await createApplication(t, { device_auth: deviceAuth, ban_propagation_to_addresses: true });
      await ban(t, devApp, 'hardware_id', 'HW-BAD');
      const res = await call(t, devApp, 'POST', '/sign_up', { username: 'alice', password: 'password123', hardware_id: 'HW-BAD' }, { ip: '10.2.2.2' });
      expectError(res, 403, 'BANNED');
      expect(await bans(t, devApp)).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'ip', value: '10.2.2.2' })]));
      expectError(await call(t, devApp, 'POST', '/sign_up', { username: 'bob', password: 'password123', hardware_id: 'HW-OK' }, { ip: '10.2.2.2' }), 403, 'BANNED');
      // Without propagation only the device is refused.
      const quiet = await createApplication(t, { device_auth: deviceAuth, ban_propagation: false });
      await ban(t, quiet, 'hardware_id', 'HW-BAD');
      expectError(await call(t, quiet, 'POST', '/sign_up', { username: 'alice', password: 'password123', hardware_id: 'HW-BAD' }, { ip: '10.2.2.3' }), 403, 'BANNED');
      expect(await bans(t, quiet)).toHaveLength(1);
    }
  });

  it('a sign-up from a banned address propagates nothing to the hardware id it sent', async () => {
    await ban(t, app, 'ip', '10.2.2.4');
    expectError(await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123', hardware_id: 'HW-SENT' }, { ip: '10.2.2.4' }), 403, 'BANNED');
    expect(await bans(t, app)).toHaveLength(1);
  });

  it('401 DEVICE_REQUIRED when the application requires a hardware id and none is sent (decisions.md)', async () => {
    const devApp = await createApplication(t, { device_auth: true });
    expectError(await call(t, devApp, 'POST', '/sign_up', { username: 'alice', password: 'password123' }), 401, 'DEVICE_REQUIRED');
    expectError(await call(t, devApp, 'POST', '/sign_up_with_license_code', { code: 'x' }), 401, 'DEVICE_REQUIRED');
  });

  it('401 INVALID_API_CREDENTIALS with a wrong application secret', async () => {
    const res = await call(t, { ...app, headers: { ...app.headers, 'x-api-secret': 'gh_sk_wrong' } }, 'POST', '/sign_up', {
      username: 'alice',
      password: 'password123',
    });
    expectError(res, 401, 'INVALID_API_CREDENTIALS');
  });
});

describe('POST /sign_up_with_license_code', () => {
  it('creates an active user with a generated username and consumes the license (201)', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    const res = await call(t, app, 'POST', '/sign_up_with_license_code', { code });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.username).toMatch(/^user-[0-9a-f]{16}$/);
    expect(body.membership).toEqual({ is_active: true, is_lifetime: false, active_until: '2026-06-08T13:00:00.000Z', plan: null, entitlements: [], in_grace: false, grace_ends_at: null });
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code }), 422, 'LICENSE_USED');
  });

  it('accepts the code in lower case and without dashes', async () => {
    const [code] = await createLicenses(t, app.id, 1, null);
    const res = await call(t, app, 'POST', '/sign_up_with_license_code', { code: (code as string).toLowerCase().replace(/-/g, '') });
    expect(res.statusCode).toBe(201);
    expect(res.json().membership).toEqual({ is_active: true, is_lifetime: true, active_until: null, plan: null, entitlements: [], in_grace: false, grace_ends_at: null });
  });

  it('422 LICENSE_INVALID for an unknown or malformed code', async () => {
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA' }), 422, 'LICENSE_INVALID');
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code: 'nonsense' }), 422, 'LICENSE_INVALID');
  });

  it("422 LICENSE_INVALID for another application's license", async () => {
    const other = await createApplication(t, { device_auth: false });
    const [code] = await createLicenses(t, other.id, 1, 60);
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code }), 422, 'LICENSE_INVALID');
  });

  it('422 VALIDATION_FAILED without a code', async () => {
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', {}), 422, 'VALIDATION_FAILED');
  });

  it('propagation: a banned license bans the address it came from; a banned hardware id bans the address and a valid license sent with it', async () => {
    const [a, b] = await createLicenses(t, app.id, 2, 60);
    await ban(t, app, 'license', a as string);
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code: a, hardware_id: 'HW-SENT' }, { ip: '10.3.4.1' }), 403, 'BANNED');
    let all = await bans(t, app);
    expect(all).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'ip', value: '10.3.4.1' })]));
    // The hardware id was only claimed: no user it belongs to was proven.
    expect(all.some((x) => x.value === 'HW-SENT')).toBe(false);
    await ban(t, app, 'hardware_id', 'HW-BAD');
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code: b, hardware_id: 'HW-BAD' }, { ip: '10.3.4.2' }), 403, 'BANNED');
    // An unknown code with a banned device: still the address.
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', hardware_id: 'HW-BAD' }, { ip: '10.3.4.3' }), 403, 'BANNED');
    all = await bans(t, app);
    expect(all).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'ip', value: '10.3.4.2' }),
        expect.objectContaining({ type: 'license', value: b }),
        expect.objectContaining({ type: 'ip', value: '10.3.4.3' }),
      ]),
    );
  });

  it('403 BANNED for a banned license, a banned IP and a banned hardware id', async () => {
    const [a, b, c] = await createLicenses(t, app.id, 3, 60);
    await ban(t, app, 'license', a as string);
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code: a }), 403, 'BANNED');
    await ban(t, app, 'ip', '10.3.3.3');
    expectError(await call(t, app, 'POST', '/sign_up_with_license_code', { code: b }, { ip: '10.3.3.3' }), 403, 'BANNED');
    const devApp = await createApplication(t, { device_auth: true });
    const [d] = await createLicenses(t, devApp.id, 1, 60);
    await ban(t, devApp, 'hardware_id', 'HW-X');
    expectError(await call(t, devApp, 'POST', '/sign_up_with_license_code', { code: d, hardware_id: 'HW-X' }), 403, 'BANNED');
    // The license refused with the banned address was not consumed, and an address passes no ban on.
    expect((await bans(t, app)).some((x) => x.value === b)).toBe(false);
    expect((await call(t, app, 'POST', '/sign_up_with_license_code', { code: b }, { ip: '10.3.3.4' })).statusCode).toBe(201);
    expect(c).toBeDefined();
  });
});

describe('usernames', () => {
  it('422 for a username that reads as a license code, so lookups by either stay unambiguous', async () => {
    const res = await call(t, app, 'POST', '/sign_up', { username: '00000-00000-00000-00000-00000-00000', password: 'password123' });
    expect(expectError(res, 422, 'VALIDATION_FAILED')).toMatchObject({ errors: [{ field: 'username', message: 'must not look like a license code' }] });
  });
});
