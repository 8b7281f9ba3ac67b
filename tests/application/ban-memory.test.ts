// The ban memory's rules, over a store that counts its probes: one probe per caller's identifiers
// and bans version, shared by requests that arrive together; a newer version asks again, an older
// one asks for itself without replacing what is remembered; a failed probe is not kept; expiry is
// judged at each request's own time; the least recently used answer goes first.
import { describe, expect, it } from 'vitest';
import { createBanMemory } from '../../src/application/ban-memory.js';
import type { BanKey, MatchedBan } from '../../src/domain/bans.js';

function countingStore(answer: (keys: BanKey[], now: number) => MatchedBan[] | Error = () => []) {
  const probes: Array<{ applicationId: string; keys: BanKey[]; now: number }> = [];
  return {
    probes,
    async findMatchingBans(applicationId: string, keys: BanKey[], now: number) {
      probes.push({ applicationId, keys, now });
      const found = answer(keys, now);
      if (found instanceof Error) throw found;
      return found;
    },
  };
}

const ip = (value: string): BanKey => ({ type: 'ip', value });
const app = (bansVersion: number, id = 'app-1') => ({ id, bansVersion });

describe('ban memory', () => {
  it('asks once per identifiers and version, requests arriving together sharing the probe', async () => {
    const store = countingStore();
    const memory = createBanMemory(store);
    await Promise.all([memory.matching(app(0), [ip('a')], 1), memory.matching(app(0), [ip('a')], 1)]);
    await memory.matching(app(0), [ip('a')], 2);
    expect(store.probes).toHaveLength(1);
    // Other identifiers, another application: probes of their own.
    await memory.matching(app(0), [ip('b')], 3);
    await memory.matching(app(0, 'app-2'), [ip('a')], 3);
    // Keys whose joined texts would coincide are still told apart.
    await memory.matching(app(0), [ip('a|ipb')], 3);
    await memory.matching(app(0), [ip('a'), ip('b')], 3);
    expect(store.probes).toHaveLength(5);
  });

  it('a newer version asks again and is remembered; an older one asks for itself and replaces nothing', async () => {
    let banned = false;
    const store = countingStore((keys) => (banned ? keys.map((k) => ({ ...k, id: 'b1', propagatedFrom: null, expiresAt: null })) : []));
    const memory = createBanMemory(store);
    expect(await memory.matching(app(3), [ip('a')], 1)).toEqual([]);
    banned = true;
    expect(await memory.matching(app(4), [ip('a')], 2)).toHaveLength(1);
    expect(await memory.matching(app(4), [ip('a')], 3)).toHaveLength(1);
    expect(store.probes).toHaveLength(2);
    // A request that read version 3 before the ban was made: its own probe, and version 4 stays.
    banned = false;
    expect(await memory.matching(app(3), [ip('a')], 4)).toEqual([]);
    expect(await memory.matching(app(4), [ip('a')], 5)).toHaveLength(1);
    expect(store.probes).toHaveLength(3);
  });

  it('judges expiry at each request time, without asking again', async () => {
    const store = countingStore((keys) => keys.map((k) => ({ ...k, id: 'brief', propagatedFrom: 'origin', expiresAt: 100 })));
    const memory = createBanMemory(store);
    expect(await memory.matching(app(0), [ip('a')], 50)).toHaveLength(1);
    expect(await memory.matching(app(0), [ip('a')], 99)).toHaveLength(1);
    expect(await memory.matching(app(0), [ip('a')], 100)).toEqual([]);
    expect(store.probes).toHaveLength(1);
  });

  it('does not keep a failed probe', async () => {
    let fail = true;
    const store = countingStore(() => (fail ? new Error('database gone') : []));
    const memory = createBanMemory(store);
    await expect(memory.matching(app(0), [ip('a')], 1)).rejects.toThrow('database gone');
    fail = false;
    expect(await memory.matching(app(0), [ip('a')], 2)).toEqual([]);
    expect(await memory.matching(app(0), [ip('a')], 3)).toEqual([]);
    expect(store.probes).toHaveLength(2);
  });

  it('drops the least recently used answer past its capacity', async () => {
    const store = countingStore();
    const memory = createBanMemory(store, 2);
    await memory.matching(app(0), [ip('a')], 1);
    await memory.matching(app(0), [ip('b')], 1);
    await memory.matching(app(0), [ip('a')], 1); // a is the most recent now
    await memory.matching(app(0), [ip('c')], 1); // b goes
    expect(store.probes).toHaveLength(3);
    await memory.matching(app(0), [ip('a')], 1);
    expect(store.probes).toHaveLength(3);
    await memory.matching(app(0), [ip('b')], 1);
    expect(store.probes).toHaveLength(4);
  });
});
