// A string with a lone UTF-16 surrogate is not text: PostgreSQL cannot store it, and a device
// registered under it could never sign in again. Refused with 422 wherever it is sent.
import { afterEach, describe, expect, it } from 'vitest';
import { createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError, member } from '../support/integration.js';

let t: TestApp;
afterEach(() => t.close());

const lone = ['\ud800', 'device-\udfff', 'a\udc00b', '\ud83d'];

describe('a hardware id with a lone surrogate answers 422, never 500', () => {
  it('on sign-up, sign-up with a license, login and activate_license', async () => {
    t = await startTestApp();
    const app = await createApplication(t, { device_auth: true });
    const u = await member(t, app, 'alice', 'correct horse battery', 60, { hardware_id: 'good-device' });
    const codes = await createLicenses(t, app.id, 2, 60);
    for (const hardwareId of lone) {
      const attempts = [
        call(t, app, 'POST', '/sign_up', { username: 'bob', password: 'password123', hardware_id: hardwareId }),
        call(t, app, 'POST', '/sign_up_with_license_code', { code: codes[0], hardware_id: hardwareId }),
        call(t, app, 'POST', '/auth/login', { credentials: { username: 'alice', password: u.password }, hardware_id: hardwareId }),
        call(t, app, 'POST', '/auth/login', { credentials: { code: u.code }, hardware_id: hardwareId }),
        call(t, app, 'POST', '/activate_license', { code: codes[1], username: 'alice', password: u.password, hardware_id: hardwareId }),
      ];
      for (const res of await Promise.all(attempts)) {
        const body = expectError(res, 422, 'VALIDATION_FAILED') as unknown as { errors: Array<{ field: string }> };
        expect(body.errors[0]?.field).toBe('hardware_id');
      }
    }
    // Nothing was registered or used: the licenses still work, and bob's name is free.
    expect((await call(t, app, 'POST', '/sign_up', { username: 'bob', password: 'password123', hardware_id: 'bobs-device' })).statusCode).toBe(201);
    expect((await call(t, app, 'POST', '/sign_up_with_license_code', { code: codes[0], hardware_id: 'carols-device' })).statusCode).toBe(201);
  });

  it('a well-formed surrogate pair (an emoji) is a fine hardware id', async () => {
    t = await startTestApp();
    const app = await createApplication(t, { device_auth: true });
    expect((await call(t, app, 'POST', '/sign_up', { username: 'emoji', password: 'password123', hardware_id: 'device-\ud83d\ude00' })).statusCode).toBe(201);
  });
});
