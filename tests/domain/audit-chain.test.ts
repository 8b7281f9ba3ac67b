import { describe, expect, it } from 'vitest';
import { canonicalJson, chainHash, type ChainedEntry, PRUNED_ACTION, type StoredEntry, verifyChain } from '../../src/domain/audit-chain.js';

const entry = (seq: number, extra: Partial<ChainedEntry> = {}): ChainedEntry => ({
  id: `e${seq}`,
  application_id: 'app',
  seq,
  occurred_at: '2026-06-08T12:00:00.000Z',
  action: 'user.created',
  actor: { type: 'owner', id: 'o1', ip: null },
  target: { type: 'user', id: `u${seq}`, label: 'alice' },
  data: { user: { id: `u${seq}` } },
  changes: null,
  outcome: 'success',
  ...extra,
});

/** A linked chain of `n` entries starting at `from` (the first trusting `startHash`). */
function chain(n: number, from = 1, startHash: string | null = null, make = entry): StoredEntry[] {
  const out: StoredEntry[] = [];
  let prev = startHash;
  for (let seq = from; seq < from + n; seq++) {
    const e = make(seq);
    const hash = chainHash(prev, e);
    out.push({ ...e, hash });
    prev = hash;
  }
  return out;
}
const headOf = (entries: StoredEntry[]) => ({ seq: entries.at(-1)!.seq, hash: entries.at(-1)!.hash });

describe('canonical JSON', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });
  it('escapes as JSON does and leaves undefined members out', () => {
    expect(canonicalJson({ 'é': 'a"b\n', u: undefined })).toBe('{"é":"a\\"b\\n"}');
  });
});

describe('chain hash', () => {
  it('is SHA-256 hex of the previous hash and the canonical JSON, independent of key order', () => {
    const e = entry(1);
    const reordered = Object.fromEntries(Object.entries(e).reverse()) as unknown as ChainedEntry;
    expect(chainHash(null, e)).toMatch(/^[0-9a-f]{64}$/);
    expect(chainHash(null, reordered)).toBe(chainHash(null, e));
    expect(chainHash('x', e)).not.toBe(chainHash(null, e));
  });
  it('ignores a hash field carried along', () => {
    expect(chainHash(null, { ...entry(1), hash: 'abc' } as StoredEntry)).toBe(chainHash(null, entry(1)));
  });
});

describe('verifyChain', () => {
  it('passes a whole chain, and an empty one', () => {
    const c = chain(5);
    expect(verifyChain(c, headOf(c))).toEqual({ ok: true, count: 5 });
    expect(verifyChain([], null)).toEqual({ ok: true, count: 0 });
  });
  it('names the first changed entry', () => {
    const c = chain(5);
    c[2] = { ...c[2]!, data: { user: { id: 'forged' } } };
    expect(verifyChain(c, headOf(c))).toMatchObject({ ok: false, problem: 'changed', seq: 3, id: 'e3' });
  });
  it('names a removed middle entry by its seq and the entry before it', () => {
    const c = chain(5);
    const gap = [...c.slice(0, 2), ...c.slice(3)];
    expect(verifyChain(gap, headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 3, after: { seq: 2, id: 'e2' } });
  });
  it('notices the newest entry removed (the head names it)', () => {
    const c = chain(5);
    expect(verifyChain(c.slice(0, 4), headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 5 });
    expect(verifyChain([], headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 1 });
  });
  it('notices a removed first entry when no prune vouches for it', () => {
    const c = chain(5);
    expect(verifyChain(c.slice(1), headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 1, after: null });
  });
  it('notices entries the head does not cover', () => {
    const c = chain(3);
    expect(verifyChain(c, { seq: 3, hash: 'other' })).toMatchObject({ ok: false, problem: 'head', seq: 3 });
    expect(verifyChain(c, null)).toMatchObject({ ok: false, problem: 'head', seq: 3, headSeq: 0 });
  });
  it('after retention, starts at the oldest remaining entry an audit.pruned entry vouches for', () => {
    const make = (seq: number) => (seq === 8 ? entry(seq, { action: PRUNED_ACTION, data: { through_seq: 4 } }) : entry(seq));
    const c = chain(5, 5, 'gone', make);
    expect(verifyChain(c, headOf(c))).toEqual({ ok: true, count: 5 });
    // Removing the start of what remains is still noticed.
    expect(verifyChain(c.slice(1), headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 5 });
    // And a change after the start.
    const changed = c.map((e) => (e.seq === 6 ? { ...e, outcome: 'refused' } : e));
    expect(verifyChain(changed, headOf(c))).toMatchObject({ ok: false, problem: 'changed', seq: 6 });
  });
});
