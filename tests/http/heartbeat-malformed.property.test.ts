// POST /api/integration/heartbeat with any body and any Authorization header (docs/api.md): the
// session's own token with a well-formed body renews; anything else answers 4xx with an error
// body, never 5xx, and moves no lease.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, member, token, type TestApplication } from '../support/integration.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let app: TestApplication;
let session: string;
let sessionId: string;
beforeAll(async () => {
  t = await startTestApp();
  app = await createApplication(t, { heartbeat_seconds: 30, default_allowed_sessions: 1 });
  const u = await member(t, app, 'alice', undefined, 600, { hardware_id: 'PC-1' });
  session = await token(t, app, { username: 'alice', password: u.password }, { hardware_id: 'PC-1' });
  sessionId = (t.deps.tokens.read(session) as { sessionId: string }).sessionId;
});
afterAll(() => t.close());

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', 'PC-1', 'PC-2', '\u0000', '\ud800', 'x'.repeat(300), 'a\r\nb'));
const device = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ name: text, platform: text, app_version: text }, { requiredKeys: [] }));
const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({ hardware_id: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })), device, extra: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] }),
);
/** The Authorization header as a function of the session's token (made once the session is). */
const authorization = fc.oneof(
  fc.constant((own: string): string | undefined => `Bearer ${own}`),
  fc.constant(() => undefined),
  text.map((s) => () => s),
  text.map((s) => () => `Bearer ${s}`),
  fc.nat({ max: 40 }).map((n) => (own: string) => `Bearer ${own.slice(0, n)}`),
  fc.nat({ max: 40 }).map((n) => (own: string) => `Bearer ${own}${'x'.repeat(n + 1)}`),
  fc.constant(() => 'Bearer'),
);

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Whether any text in `v` (keys included) holds a lone surrogate, which every route refuses with 422. */
const holdsLoneSurrogate = (v: unknown): boolean =>
  typeof v === 'string' ? LONE_SURROGATE.test(v) : typeof v === 'object' && v !== null && Object.entries(v).some(([k, x]) => LONE_SURROGATE.test(k) || holdsLoneSurrogate(x));

/** Whether `b` is a body the route takes: none, or an object of hardware_id (this machine's) and device. */
function wellFormed(b: unknown): boolean {
  if (b === undefined || b === null) return true;
  if (holdsLoneSurrogate(b)) return false;
  if (typeof b !== 'object' || Array.isArray(b)) return false;
  const o = b as Record<string, unknown>;
  if (Object.keys(o).some((k) => k !== 'hardware_id' && k !== 'device')) return false;
  if ('hardware_id' in o && o['hardware_id'] !== 'PC-1') return false;
  return !('device' in o) || (typeof o['device'] === 'object' && o['device'] !== null && !Array.isArray(o['device']));
}

const leaseNow = async () => (await t.store.findSession(sessionId))?.leaseExpiresAt;

describe('POST /heartbeat with any input', () => {
  it('renews for the session’s own token and a well-formed body, and refuses the rest with 4xx without moving the lease', async () => {
    await fc.assert(
      fc.asyncProperty(body, authorization, async (payload, authorizationOf) => {
        const auth = authorizationOf(session);
        // Each try a moment later (well within the lease), so a renewal is seen to move the lease.
        t.clock.advance(100);
        const before = await leaseNow();
        const res = await t.inject({
          method: 'POST',
          url: '/api/integration/heartbeat',
          headers: { ...app.headers, ...(auth === undefined ? {} : { authorization: auth }), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
        });
        expect(res.statusCode, res.body).toBeLessThan(500);
        if (auth === bearer(session).authorization && wellFormed(payload)) {
          expect(res.statusCode, res.body).toBe(200);
          expect(await leaseNow()).toBe(t.clock.now() + 60_000);
        } else {
          expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
          expect(typeof res.json().error_code).toBe('string');
          expect(await leaseNow()).toBe(before);
        }
      }),
      { numRuns: 200, seed: 43 },
    );
  });
});
