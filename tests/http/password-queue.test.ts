// One application's flood of password checks fills its own queue, not another's: past the bound
// it answers 429 PASSWORD_QUEUE_FULL with Retry-After at once (docs/security.md, "Password work queue").
import { afterEach, expect, it } from 'vitest';
import type { PasswordWork } from '../../src/application/ports/password-hasher.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError, login, member, signUp } from '../support/integration.js';
import { wrapPasswordWork } from '../support/password-work.js';

let t: TestApp;
afterEach(() => t.close());

it("a full queue answers 429 with Retry-After, counts no failure, and leaves other applications' checks alone", async () => {
  // Lockout after one failure: a refusal that counted as a failed check would lock the account.
  t = await startTestApp({ passwordQueue: 2, limits: { lockoutThreshold: 1 } });
  const flooded = await createApplication(t, { device_auth: false });
  const other = await createApplication(t, { device_auth: false });
  const ann = await member(t, flooded, 'ann');
  const ben = await member(t, flooded, 'ben');
  const cid = await member(t, flooded, 'cid');
  const bob = await member(t, other, 'bob');

  // The flooded application's verifications hold until released; the others' run freely.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered = 0;
  let bothIn: () => void = () => undefined;
  const bothHeld = new Promise<void>((resolve) => (bothIn = resolve));
  wrapPasswordWork(t.deps, (work: PasswordWork, lane) =>
    lane !== flooded.id
      ? work
      : {
          ...work,
          verify: async (hash, password) => {
            entered += 1;
            if (entered === 2) bothIn();
            await held;
            return work.verify(hash, password);
          },
        },
  );

  const first = login(t, flooded, { username: 'ann', password: ann.password });
  const second = login(t, flooded, { username: 'ben', password: ben.password });
  await bothHeld;

  // The queue of the flooded application is full: refused at once, not queued.
  const refused = expectError(await login(t, flooded, { username: 'cid', password: cid.password }), 429, 'PASSWORD_QUEUE_FULL');
  expect(refused.message).toMatch(/try again/);
  const again = await login(t, flooded, { username: 'cid', password: cid.password });
  expect(again.headers['retry-after']).toBe('1');
  expectError(await call(t, flooded, 'POST', '/sign_up', { username: 'dan', password: 'a fine password' }), 429, 'PASSWORD_QUEUE_FULL');

  // Another application's login goes through meanwhile.
  expect((await login(t, other, { username: 'bob', password: bob.password })).statusCode).toBe(200);
  await signUp(t, other, 'eve', 'another fine password');

  release();
  expect((await first).statusCode).toBe(200);
  expect((await second).statusCode).toBe(200);
  // The refusals counted nothing against cid: with a lockout threshold of 1 it still signs in.
  expect((await login(t, flooded, { username: 'cid', password: cid.password })).statusCode).toBe(200);
});
