// The background repeater the audit chainer and the expiry notices share: one pass at a time, a
// failure reported and not thrown, a stop that waits for the pass in hand.
import { describe, expect, it } from 'vitest';
import { periodicPasses } from '../../src/application/periodic-passes.js';

/** A pass that stays open until `finish` is called, counting how often it began. */
function heldPass() {
  let began = 0;
  let finish: () => void = () => {};
  const drain = () => {
    began += 1;
    return new Promise<number>((resolve) => (finish = () => resolve(began)));
  };
  return { drain, began: () => began, finish: () => finish() };
}

describe('periodicPasses', () => {
  it('starts a pass at once, skips polls while it runs, and stop waits for it', async () => {
    const held = heldPass();
    const passes = periodicPasses(held.drain, { pollMs: 1 });
    passes.start();
    passes.start();
    expect(held.began()).toBe(1);
    // Polls come and go while the pass is open: none begins another.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held.began()).toBe(1);
    let stopped = false;
    const stopping = passes.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    held.finish();
    await stopping;
    expect(stopped).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held.began()).toBe(1);
  });

  it('reports a failed pass to onError instead of throwing, and drain answers what a pass did', async () => {
    const errors: unknown[] = [];
    const failing = periodicPasses(() => Promise.reject(new Error('store down')), { pollMs: 60_000, onError: (e) => errors.push(e) });
    failing.start();
    await failing.stop();
    expect(errors).toEqual([new Error('store down')]);
    expect(await periodicPasses(() => Promise.resolve(7), { pollMs: 60_000 }).drain()).toBe(7);
  });
});
