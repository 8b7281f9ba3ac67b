// PUT .../users/{user_id}/entitlements with any list (docs/api.md): a list of valid codes is
// stored sorted without repeats; anything else answers 4xx with a code and writes nothing.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENT_CODE_PATTERN } from '../../src/domain/plan.js';
import { member } from '../support/integration.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let appId: string;
let userId: string;
beforeAll(async () => {
  t = await startTestApp();
  const app = await createApplication(t, { device_auth: false });
  appId = app.id;
  userId = (await member(t, app, 'alice')).id;
});
afterAll(() => t.close());

const code = fc.oneof(fc.stringMatching(/^[a-z0-9_.:-]{1,64}$/), fc.string({ maxLength: 70 }), fc.constantFrom('', 'A', 'x'.repeat(65), 'a b', '\u0000', '\ud800'));
const list = fc.oneof(fc.array(code, { maxLength: 110 }), fc.jsonValue({ maxDepth: 2 }));

const current = async (): Promise<unknown> => (await consoleRequest(t, 'GET', `/applications/${appId}/users/${userId}`)).json().membership.entitlements;

describe('PUT .../entitlements with any input', () => {
  it('stores valid lists sorted without repeats and refuses the rest without writing', async () => {
    await fc.assert(
      fc.asyncProperty(list, async (entitlements) => {
        const before = await current();
        const res = await consoleRequest(t, 'PUT', `/applications/${appId}/users/${userId}/entitlements`, { entitlements });
        const valid = Array.isArray(entitlements) && entitlements.length <= 100 && entitlements.every((c) => typeof c === 'string' && ENTITLEMENT_CODE_PATTERN.test(c));
        if (valid) {
          expect(res.statusCode, res.body).toBe(200);
          expect(res.json().membership.entitlements).toEqual([...new Set(entitlements as string[])].sort());
        } else {
          expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
          expect(res.statusCode, res.body).toBeLessThan(500);
          expect(typeof res.json().error_code).toBe('string');
          expect(await current()).toEqual(before);
        }
      }),
      { numRuns: 150, seed: 42 },
    );
  });
});
