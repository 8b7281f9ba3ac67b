// POST /auth/refresh and login's remember with any input (docs/api.md): malformed bodies answer 4xx
// with an error code, never 5xx, and no presented machine but the token's own spends the token.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, member, type TestApplication } from '../support/integration.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let app: TestApplication;
let password: string;
let refreshToken: string;
beforeAll(async () => {
  t = await startTestApp({ limits: { ipFailureLimit: 1_000_000, lockoutThreshold: 1_000_000 } });
  app = await createApplication(t, { device_auth: true, default_allowed_sessions: 5 });
  password = (await member(t, app, 'alice', undefined, null, { hardware_id: 'HW-1' })).password;
  const res = await login(t, app, { username: 'alice', password }, { hardware_id: 'HW-1', remember: true });
  refreshToken = res.json<{ refresh_token: string }>().refresh_token;
});
afterAll(() => t.close());

const text = fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('', '\u0000', '\ud800', 'x'.repeat(257), 'gh_rt_', 'HW-1 ', 'hw-1'));
const hardwareId = fc.oneof(text, fc.jsonValue({ maxDepth: 1 }));
/** Made once the token exists: arbitrary bodies, and the real token from anywhere but its machine. */
const bodies = (token: string) =>
  fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.record({ refresh_token: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })), hardware_id: hardwareId }, { requiredKeys: [] }),
    hardwareId.filter((h) => h !== 'HW-1').map((h) => ({ refresh_token: token, hardware_id: h })),
    fc.record({ refresh_token: fc.constant(token), hardware_id: fc.constant('HW-1'), extra: fc.jsonValue({ maxDepth: 1 }) }),
  );

describe('POST /auth/refresh with any input', () => {
  it('answers 4xx with an error code, and the token survives for its own machine', async () => {
    await fc.assert(
      fc.asyncProperty(bodies(refreshToken), async (payload) => {
        const res = await call(t, app, 'POST', '/auth/refresh', payload);
        expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, res.body).toBeLessThan(500);
        expect(typeof res.json<{ error_code: unknown }>().error_code).toBe('string');
      }),
      { numRuns: 200, seed: 43 },
    );
    expect((await call(t, app, 'POST', '/auth/refresh', { refresh_token: refreshToken, hardware_id: 'HW-1' })).statusCode).toBe(200);
  });

  it('login with any remember value: a boolean logs in, anything else is a 422', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 1 }), async (remember) => {
        const res = await login(t, app, { username: 'alice', password }, { hardware_id: 'HW-1', remember });
        expect(res.statusCode, res.body).toBe(typeof remember === 'boolean' ? 200 : 422);
        if (remember === true) expect(res.json()).toHaveProperty('refresh_token');
      }),
      { numRuns: 40, seed: 44 },
    );
  });
});
