// The device routes and the `device` object of login and sign-up with any input (docs/api.md):
// a good object is taken, anything else answers 4xx with a code, never a 5xx, and writes nothing.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptDeviceInfo } from '../../src/domain/device-info.js';
import { bearer, call, member, token, type TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let app: TestApplication;
let userId: string;
const credentials = { username: 'alice', password: 'correct horse battery' };
beforeAll(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 3, default_allowed_sessions: 100, device_reset_cooldown_hours: 24 });
  userId = (await member(t, app, 'alice', credentials.password, null, { hardware_id: 'HW-1' })).id;
});
afterAll(() => t.close());

const text = fc.oneof(fc.string({ maxLength: 120 }), fc.constantFrom('', ' ', 'a\u0000', 'tab\there', '\u2028', 'x'.repeat(51), 'y'.repeat(101), '\ud800'));
const deviceField = fc.oneof(
  fc.record({ name: text, platform: text, app_version: text }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 2 }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
);

/** Whether the domain takes it (a closed object of strings it accepts). */
function acceptable(device: unknown): boolean {
  if (typeof device !== 'object' || device === null || Array.isArray(device)) return false;
  const entries = Object.entries(device);
  if (!entries.every(([k, v]) => ['name', 'platform', 'app_version'].includes(k) && typeof v === 'string' && v.length <= 4096)) return false;
  try {
    acceptDeviceInfo(device);
    return true;
  } catch {
    return false;
  }
}

const shown = async () => (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${userId}`)).json().registered_devices as unknown;

const expectRefused = (res: { statusCode: number; body: string; json: () => { error_code?: unknown } }) => {
  expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, res.body).toBeLessThan(500);
  expect(typeof res.json().error_code).toBe('string');
};

describe('the device object with any input', () => {
  it('login takes a good one and refuses the rest with a 4xx, writing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(deviceField, async (device) => {
        const before = await shown();
        const res = await call(t, app, 'POST', '/auth/login', { credentials, hardware_id: 'HW-1', device });
        if (acceptable(device)) expect(res.statusCode, res.body).toBe(200);
        else {
          expectRefused(res);
          expect(await shown()).toEqual(before);
        }
      }),
      { numRuns: 120, seed: 43 },
    );
  });

  it('sign-up and sign-up with a license code answer a 4xx for a bad one, never a 5xx', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(deviceField, fc.boolean(), async (device, withCode) => {
        n++;
        const body = withCode ? { code: `NOT-A-CODE-${n}`, hardware_id: `HW-S${n}`, device } : { username: `newcomer-${n}`, password: credentials.password, hardware_id: `HW-S${n}`, device };
        const res = await call(t, app, 'POST', withCode ? '/sign_up_with_license_code' : '/sign_up', body);
        expect(res.statusCode, res.body).toBeLessThan(500);
        if (!acceptable(device)) expectRefused(res);
      }),
      { numRuns: 80, seed: 44 },
    );
  });
});

describe('GET and DELETE /devices with any input', () => {
  it('malformed ids, tokens and bodies answer a 4xx and drop nothing', async () => {
    const tok = await token(t, app, credentials, { hardware_id: 'HW-1' });
    const id = fc.oneof(fc.string({ maxLength: 60 }), fc.uuid(), fc.constantFrom('', '%00', '..', 'x'.repeat(400)));
    const auth = fc.oneof(
      fc.constant(bearer(tok)),
      fc.string({ maxLength: 80 }).map((s) => ({ authorization: `Bearer ${s}` })),
      fc.constant({}),
    );
    await fc.assert(
      fc.asyncProperty(id, auth, fc.option(fc.jsonValue({ maxDepth: 1 })), async (deviceId, headers, body) => {
        const before = await shown();
        const del = await t.inject({
          method: 'DELETE',
          url: `/api/integration/devices/${encodeURIComponent(deviceId)}`,
          headers: { ...app.headers, ...headers },
          ...(body === null ? {} : { payload: JSON.stringify(body), headers: { ...app.headers, ...headers, 'content-type': 'application/json' } }),
        });
        expectRefused(del);
        expect(await shown()).toEqual(before);
        const list = await call(t, app, 'GET', '/devices', undefined, { headers });
        if ('authorization' in headers && headers.authorization === `Bearer ${tok}`) expect(list.statusCode).toBe(200);
        else expectRefused(list);
      }),
      { numRuns: 120, seed: 45 },
    );
  });
});
