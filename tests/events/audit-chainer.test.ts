// The chainer's runner (application/events/audit-chainer.ts): drain links until nothing is left;
// the poller runs one pass at a time and stops cleanly.
import { describe, expect, it } from 'vitest';
import { createAuditChainer } from '../../src/application/events/audit-chainer.js';
import type { Actor } from '../../src/application/events/actor.js';

/** A store with `pending` events to link, `limit` at a time. */
function fakeStore(pending: number) {
  const calls: number[] = [];
  const actors: string[] = [];
  const reanchors: number[] = [];
  return {
    calls,
    actors,
    reanchors,
    clock: { now: () => 1_000 },
    store: {
      async reanchorUnkeyedChains(now: number, actor: Actor) {
        reanchors.push(now);
        actors.push(actor.type);
        return 0;
      },
      async chainEvents(limit: number) {
        const linked = Math.min(limit, pending);
        pending -= linked;
        calls.push(linked);
        return linked;
      },
    },
  };
}

describe('audit chainer', () => {
  it('drain links in batches until a batch comes back short, as the system', async () => {
    const fake = fakeStore(1200);
    const chainer = createAuditChainer(fake, { pollMs: 60_000 });
    expect(await chainer.drain()).toBe(1200);
    expect(fake.calls).toEqual([500, 500, 200]);
    expect(await chainer.drain()).toBe(0);
    // Chains made before keying are re-anchored once per process, before the first links.
    expect(fake.reanchors).toEqual([1_000]);
  });

  it('start runs a pass at once; stop waits for it; errors go to onError', async () => {
    const errors: unknown[] = [];
    const chainer = createAuditChainer(
      { clock: { now: () => 0 }, store: { reanchorUnkeyedChains: async () => 0, chainEvents: async () => Promise.reject(new Error('db down')) } },
      { pollMs: 60_000, onError: (e) => errors.push(e) },
    );
    chainer.start();
    await chainer.stop();
    expect(errors).toHaveLength(1);
    const fake = fakeStore(3);
    const ok = createAuditChainer(fake, { pollMs: 60_000 });
    ok.start();
    await ok.stop();
    expect(fake.calls).toEqual([3]);
    expect(fake.actors).toEqual(['system']);
  });
});
