// app_context writes its answer as text by hand (adapters/http/views.ts): for any member, the user
// it writes is byte for byte what userSummaryJson shows every other answer, plan and grace included.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { appContextBody, userSummaryJson } from '../src/adapters/http/views.js';
import type { AppContext } from '../src/application/integration/app-context.js';
import type { HeldPlan } from '../src/domain/membership-state.js';
import { MINUTE_MS } from '../src/domain/time.js';
import { makeApp, makeUser } from './contract/fixtures.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const app = makeApp('owner-1');
const code = fc.constantFrom('beta', 'export', 'dlc:1', 'x_y');
const codes = fc.uniqueArray(code).map((cs) => cs.sort());
const instant = fc.integer({ min: -90, max: 90 }).map((m) => NOW + m * MINUTE_MS);
const plan: fc.Arbitrary<HeldPlan> = fc.record({
  id: fc.uuid(),
  name: fc.string({ maxLength: 12 }),
  entitlements: codes,
  graceMinutes: fc.integer({ min: 0, max: 60 }),
  maxDevices: fc.constant(null),
  maxSessions: fc.constant(null),
});
const member = fc.record({
  username: fc.string({ minLength: 1, maxLength: 12 }),
  activeUntil: fc.option(instant),
  isLifetime: fc.boolean(),
  direct: codes,
  base: fc.option(plan),
  addOns: fc.array(fc.record({ endsAt: fc.option(instant), entitlements: codes }), { maxLength: 2 }),
});

it("app_context's user is userSummaryJson's, as text", () => {
  fc.assert(
    fc.property(member, (m) => {
      const user = makeUser(app.id, { username: m.username, membership: { activeUntil: m.activeUntil, isLifetime: m.isLifetime }, entitlements: m.direct });
      const shown = { user, plans: { base: m.base, addOns: m.addOns } };
      const context: AppContext = { app, variables: [], files: [], announcements: [], user: shown, serverTime: NOW };
      // Twice: the second answer is made from what the first kept.
      for (let i = 0; i < 2; i++) {
        const body = appContextBody(context);
        const userText = body.slice(body.indexOf('"user":') + '"user":'.length, body.lastIndexOf(',"server_time"'));
        expect(userText).toBe(JSON.stringify(userSummaryJson(shown, NOW)));
      }
    }),
    { seed: 42, numRuns: 500 },
  );
});
