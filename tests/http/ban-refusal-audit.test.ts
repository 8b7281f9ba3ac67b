// A banned caller's refusals (issue 39, item 17): every request is refused, but only a budget of
// them per address writes an audit entry, so a banned client polling cannot grow the log a row
// per request. Other addresses keep their own budget, and a new window records again.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BAN_REFUSALS_RECORDED } from '../../src/application/ban-guard.js';
import { IP_WINDOW_MS } from '../../src/domain/auth-throttle.js';
import { ban, bearer, call, expectError, member, token, type TestApplication } from '../support/integration.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let app: TestApplication;
let tok: string;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false, ban_propagation: false, session_ttl_seconds: 3600 });
  const u = await member(t, app, 'polly', undefined, 600);
  tok = await token(t, app, { username: 'polly', password: u.password });
});
afterEach(() => t.close());

const poll = (ip: string) => call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok), ip });
const refusals = async () => (await t.store.listEvents(app.id, {}, { limit: 1000 })).filter((e) => e.action === 'request.refused');

it("300 polls from a banned address are all refused, and write only the address's budget of audit entries", async () => {
  await ban(t, app, 'ip', '10.70.0.1');
  await ban(t, app, 'ip', '10.70.0.2');
  for (let i = 0; i < 300; i++) expectError(await poll('10.70.0.1'), 403, 'BANNED');
  expect(await refusals()).toHaveLength(BAN_REFUSALS_RECORDED);
  // Another banned address has a budget of its own.
  expectError(await poll('10.70.0.2'), 403, 'BANNED');
  expect(await refusals()).toHaveLength(BAN_REFUSALS_RECORDED + 1);
  // The next window records the first refusals again, and no more.
  t.clock.advance(IP_WINDOW_MS);
  for (let i = 0; i < 30; i++) expectError(await poll('10.70.0.1'), 403, 'BANNED');
  expect(await refusals()).toHaveLength(2 * BAN_REFUSALS_RECORDED + 1);
});
