// /readyz pings the database and the blob store at most once a second (docs/api.md, Health): a burst
// of probes, or a prober at a high rate, costs one ping of each per second, not one per call.
import { afterEach, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(() => t.close());

function countPings(app: TestApp) {
  const counts = { store: 0, blobs: 0 };
  let storeDown = false;
  const store = app.deps.store;
  const blobs = app.deps.blobs;
  app.deps.store = { ...store, ping: async () => (counts.store++, storeDown ? Promise.reject(new Error('down')) : store.ping()) };
  app.deps.blobs = { ...blobs, ping: async () => (counts.blobs++, blobs.ping()) };
  return { counts, setStoreDown: (down: boolean) => (storeDown = down) };
}

const readyz = async (app: TestApp) => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode;

it('answers from one ping for a second, then pings again; a burst shares one ping', async () => {
  t = await startTestApp();
  const { counts } = countPings(t);
  const burst = await Promise.all(Array.from({ length: 20 }, () => readyz(t)));
  expect(burst.every((s) => s === 200)).toBe(true);
  expect(counts).toEqual({ store: 1, blobs: 1 });
  t.clock.advance(999);
  expect(await readyz(t)).toBe(200);
  expect(counts).toEqual({ store: 1, blobs: 1 });
  t.clock.advance(1);
  expect(await readyz(t)).toBe(200);
  expect(counts).toEqual({ store: 2, blobs: 2 });
});

it('a failed ping is remembered for the same second, and the next second asks again', async () => {
  t = await startTestApp();
  const { counts, setStoreDown } = countPings(t);
  setStoreDown(true);
  expect(await readyz(t)).toBe(503);
  expect(await readyz(t)).toBe(503);
  expect(counts.store).toBe(1);
  setStoreDown(false);
  t.clock.advance(1000);
  expect(await readyz(t)).toBe(200);
  expect(counts.store).toBe(2);
});
