// The expiry notices' runner (application/events/membership-notices.ts): drain passes at the
// clock's now, as the system, until a pass comes back short or finds only others' work; the poller
// runs one pass at a time and stops cleanly.
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/application/events/actor.js';
import { createMembershipNoticer } from '../../src/application/events/membership-notices.js';
import type { NoticePass } from '../../src/application/ports/membership-notice-store.js';

/** A store answering the passes scripted, recording what each call was given. */
function fakeStore(passes: NoticePass[], now = () => 1_000) {
  const calls: Array<{ now: number; limit: number; actor: string }> = [];
  return {
    calls,
    clock: { now },
    store: {
      async recordMembershipNotices(at: number, limit: number, actor: Actor): Promise<NoticePass> {
        calls.push({ now: at, limit, actor: actor.type });
        return passes.shift() ?? { scanned: 0, recorded: 0 };
      },
    },
  };
}

describe('membership noticer', () => {
  it('drain passes until a batch comes back short, at the clock, as the system', async () => {
    const fake = fakeStore([
      { scanned: 200, recorded: 200 },
      { scanned: 200, recorded: 150 },
      { scanned: 12, recorded: 12 },
    ]);
    const noticer = createMembershipNoticer(fake, { pollMs: 60_000 });
    expect(await noticer.drain()).toBe(362);
    expect(fake.calls).toEqual([
      { now: 1_000, limit: 200, actor: 'system' },
      { now: 1_000, limit: 200, actor: 'system' },
      { now: 1_000, limit: 200, actor: 'system' },
    ]);
    expect(await noticer.drain()).toBe(0);
  });

  it('a full batch that recorded nothing (another instance took it) ends the drain', async () => {
    const fake = fakeStore([{ scanned: 200, recorded: 0 }]);
    expect(await createMembershipNoticer(fake, { pollMs: 60_000 }).drain()).toBe(0);
    expect(fake.calls).toHaveLength(1);
  });

  it('start runs a pass at once; stop waits for it; errors go to onError', async () => {
    const errors: unknown[] = [];
    const failing = createMembershipNoticer(
      { clock: { now: () => 0 }, store: { recordMembershipNotices: async () => Promise.reject(new Error('db down')) } },
      { pollMs: 60_000, onError: (e) => errors.push(e) },
    );
    failing.start();
    await failing.stop();
    expect(errors).toHaveLength(1);
    const fake = fakeStore([{ scanned: 3, recorded: 3 }]);
    const ok = createMembershipNoticer(fake, { pollMs: 60_000 });
    ok.start();
    ok.start(); // already started: no second timer, no second pass
    await ok.stop();
    expect(fake.calls).toHaveLength(1);
  });
});
