// POST /borrow and POST /return with any body, headers and token (docs/api.md): well-formed input
// is answered as the rules say; anything else answers 4xx with a code, never 5xx, and holds no seat.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, login, type TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let app: TestApplication;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true });
  const plan = await consoleRequest(t, 'POST', `/applications/${app.id}/plans`, { name: 'Floating', kind: 'base', duration_minutes: 600, seats: 2, floating: true, max_borrow_minutes: 60 });
  const [license] = (await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count: 1, plan_id: plan.json<{ id: string }>().id })).json<{ licenses: Array<{ code: string }> }>().licenses;
  expect((await call(t, app, 'POST', '/sign_up_with_license_code', { code: license!.code, hardware_id: 'hw-a' })).statusCode).toBe(201);
  token = (await login(t, app, { code: license!.code }, { hardware_id: 'hw-a' })).json<{ session_token: string }>().session_token;
});
afterAll(() => t.close());

const hardwareId = fc.oneof(fc.constant('hw-a'), fc.string({ maxLength: 300 }), fc.constantFrom('', '\u0000', '\ud800', 'x'.repeat(257)), fc.jsonValue({ maxDepth: 1 }));
const minutes = fc.oneof(fc.integer({ min: -10, max: 100 }), fc.double(), fc.string({ maxLength: 5 }), fc.constantFrom(null, 1e308, -0, '5'));
const body = fc.oneof(
  fc.record({ hardware_id: hardwareId, minutes }, { requiredKeys: [] }),
  fc.record({ hardware_id: hardwareId, minutes, extra: fc.jsonValue({ maxDepth: 1 }) }),
  fc.jsonValue({ maxDepth: 2 }),
);
const auth = fc.oneof(
  fc.constant<Record<string, string>>({}),
  fc.constant('valid').map(() => bearer(token)),
  fc.string({ maxLength: 80 }).map((s) => ({ authorization: `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}` })),
  fc.constant('tampered').map(() => bearer(`${token.slice(0, -3)}xyz`)),
);

const wellFormedBorrow = (b: unknown): b is { hardware_id: string; minutes: number } =>
  typeof b === 'object' &&
  b !== null &&
  !Array.isArray(b) &&
  Object.keys(b).every((k) => k === 'hardware_id' || k === 'minutes') &&
  (b as { hardware_id?: unknown }).hardware_id === 'hw-a' &&
  Number.isInteger((b as { minutes?: unknown }).minutes);

describe('POST /borrow and /return with any input', () => {
  it('never answers 5xx; only a valid token, the session machine and 1..60 minutes borrow', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/borrow', '/return'), body, auth, async (path, payload, headers) => {
        const res = await call(t, app, 'POST', path, payload, { headers });
        expect(res.statusCode, res.body).toBeLessThan(500);
        if (res.statusCode >= 400) {
          expect(typeof res.json().error_code, res.body).toBe('string');
          return;
        }
        // Success only for a well-formed request with the real token.
        expect(headers).toEqual(bearer(token));
        if (path === '/borrow') {
          expect(wellFormedBorrow(payload), JSON.stringify(payload)).toBe(true);
          const m = (payload as { minutes: number }).minutes;
          expect(m >= 1 && m <= 60).toBe(true);
        } else expect(res.statusCode).toBe(204);
      }),
      { numRuns: 200, seed: 43 },
    );
  });
});
