// The audit chain's rules (docs/events.md, The hash chain): keyed links, seals, an unkeyed prefix
// closed by a keyed entry, prunes, and the attacks of someone who can write the database but has
// no key: edit and re-link with plain SHA-256, cut the tail, forge a prune.
import { describe, expect, it } from 'vitest';
import { canonicalJson, chainHash, type ChainedEntry, entrySeal, legacyChainHash, PRUNED_ACTION, type StoredEntry, verifyChain } from '../../src/domain/audit-chain.js';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);

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

type Link = (previous: string | null, e: ChainedEntry) => string;
const keyed: Link = (previous, e) => chainHash(KEY, previous, e);

/** A linked chain of `n` entries starting at `from` (linked to `startHash`). */
function chain(n: number, from = 1, startHash: string | null = null, make = entry, link: Link = keyed): StoredEntry[] {
  const out: StoredEntry[] = [];
  let prev = startHash;
  for (let seq = from; seq < from + n; seq++) {
    const e = make(seq);
    const hash = link(prev, e);
    out.push({ ...e, hash });
    prev = hash;
  }
  return out;
}
/** The entries re-linked from scratch with `link`, as an attacker would after an edit. */
const relinked = (entries: ChainedEntry[], link: Link, startHash: string | null = null): StoredEntry[] => {
  let prev = startHash;
  return entries.map((e) => {
    const hash = link(prev, e);
    prev = hash;
    return { ...e, hash };
  });
};
const headOf = (entries: StoredEntry[]) => ({ seq: entries.at(-1)!.seq, hash: entries.at(-1)!.hash });

describe('canonical JSON', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });
  it('escapes as JSON does and leaves undefined members out', () => {
    expect(canonicalJson({ é: 'a"b\n', u: undefined })).toBe('{"é":"a\\"b\\n"}');
  });
});

describe('chain hash', () => {
  it('is an HMAC-SHA-256 under the key of the previous hash and the canonical JSON, independent of key order', () => {
    const e = entry(1);
    const reordered = Object.fromEntries(Object.entries(e).reverse()) as unknown as ChainedEntry;
    expect(chainHash(KEY, null, e)).toMatch(/^[0-9a-f]{64}$/);
    expect(chainHash(KEY, null, reordered)).toBe(chainHash(KEY, null, e));
    expect(chainHash(KEY, 'x', e)).not.toBe(chainHash(KEY, null, e));
    // Neither another key nor plain SHA-256 gives the same link.
    expect(chainHash(OTHER_KEY, null, e)).not.toBe(chainHash(KEY, null, e));
    expect(legacyChainHash(null, e)).not.toBe(chainHash(KEY, null, e));
  });
  it('ignores a hash field carried along', () => {
    expect(chainHash(KEY, null, { ...entry(1), hash: 'abc' } as StoredEntry)).toBe(chainHash(KEY, null, entry(1)));
  });
  it('a seal covers the entry but its seq, under the key', () => {
    expect(entrySeal(KEY, entry(1))).toBe(entrySeal(KEY, { ...entry(1), seq: 9 }));
    expect(entrySeal(KEY, entry(1))).not.toBe(entrySeal(KEY, { ...entry(1), outcome: 'refused' }));
    expect(entrySeal(OTHER_KEY, entry(1))).not.toBe(entrySeal(KEY, entry(1)));
  });
});

describe('verifyChain', () => {
  it('passes a whole chain, and an empty one', () => {
    const c = chain(5);
    expect(verifyChain(KEY, c, headOf(c))).toEqual({ ok: true, count: 5, legacy: 0 });
    expect(verifyChain(KEY, [], null)).toEqual({ ok: true, count: 0, legacy: 0 });
  });
  it('names the first changed entry', () => {
    const c = chain(5);
    c[2] = { ...c[2]!, data: { user: { id: 'forged' } } };
    expect(verifyChain(KEY, c, headOf(c))).toMatchObject({ ok: false, problem: 'changed', seq: 3, id: 'e3' });
  });
  it('attack: an entry edited and the chain re-linked with plain SHA-256 (head and all) is refused', () => {
    const c = chain(5);
    const forged = relinked(
      c.map((e) => (e.seq === 3 ? { ...e, data: { user: { id: 'forged' } } } : e)),
      legacyChainHash,
    );
    // Every link is a valid unkeyed one, but none is keyed: nothing vouches for them.
    expect(verifyChain(KEY, forged, headOf(forged))).toMatchObject({ ok: false, problem: 'unkeyed', seq: 1 });
    // Re-linked from the edit on, the first re-linked entry no longer matches its keyed link.
    const tail = relinked(forged.slice(2), legacyChainHash, c[1]!.hash);
    const mixed = [...c.slice(0, 2), ...tail];
    expect(verifyChain(KEY, mixed, headOf(mixed))).toMatchObject({ ok: false, problem: 'changed', seq: 3 });
    // Re-linked under a guessed key: the same.
    const guessed = relinked(forged, (p, e) => chainHash(OTHER_KEY, p, e));
    expect(verifyChain(KEY, guessed, headOf(guessed))).toMatchObject({ ok: false, problem: 'changed', seq: 1 });
  });
  it('names a removed middle entry by its seq and the entry before it', () => {
    const c = chain(5);
    const gap = [...c.slice(0, 2), ...c.slice(3)];
    expect(verifyChain(KEY, gap, headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 3, after: { seq: 2, id: 'e2' } });
  });
  it('notices the newest entry removed (the head names it)', () => {
    const c = chain(5);
    expect(verifyChain(KEY, c.slice(0, 4), headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 5 });
    expect(verifyChain(KEY, [], headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 1 });
  });
  it('attack: the tail cut and the head moved back passes the database alone, but not an exported head', () => {
    const c = chain(5);
    const cut = c.slice(0, 3);
    expect(verifyChain(KEY, cut, headOf(cut))).toEqual({ ok: true, count: 3, legacy: 0 });
    expect(verifyChain(KEY, cut, headOf(cut), headOf(c))).toMatchObject({ ok: false, problem: 'anchor', seq: 5, lastSeq: 3 });
    // The tail replaced by other entries (of the right length) is refused at the anchor's seq.
    const other = chain(2, 4, c[2]!.hash, (seq) => entry(seq, { outcome: 'other' }));
    const swapped = [...cut, ...other];
    expect(verifyChain(KEY, swapped, headOf(swapped), headOf(c))).toMatchObject({ ok: false, problem: 'anchor', seq: 5 });
    // An anchor the chain has grown past still holds.
    const grown = [...c, ...chain(2, 6, c[4]!.hash)];
    expect(verifyChain(KEY, grown, headOf(grown), headOf(c))).toEqual({ ok: true, count: 7, legacy: 0 });
  });
  it('notices a removed first entry when no prune vouches for it', () => {
    const c = chain(5);
    expect(verifyChain(KEY, c.slice(1), headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 1, after: null });
  });
  it('notices entries the head does not cover', () => {
    const c = chain(3);
    expect(verifyChain(KEY, c, { seq: 3, hash: 'other' })).toMatchObject({ ok: false, problem: 'head', seq: 3 });
    expect(verifyChain(KEY, c, null)).toMatchObject({ ok: false, problem: 'head', seq: 3, headSeq: 0 });
  });
  it('after retention, starts after the audit.pruned entry and recomputes the first entry from the hash it recorded', () => {
    const throughHash = 'f'.repeat(64);
    const make = (seq: number) => (seq === 8 ? entry(seq, { action: PRUNED_ACTION, data: { through_seq: 4, through_hash: throughHash } }) : entry(seq));
    const c = chain(5, 5, throughHash, make);
    expect(verifyChain(KEY, c, headOf(c))).toEqual({ ok: true, count: 5, legacy: 0 });
    // Removing the start of what remains is still noticed, and so is a change to it.
    expect(verifyChain(KEY, c.slice(1), headOf(c))).toMatchObject({ ok: false, problem: 'missing', seq: 5 });
    const firstChanged = c.map((e) => (e.seq === 5 ? { ...e, outcome: 'refused' } : e));
    expect(verifyChain(KEY, firstChanged, headOf(c))).toMatchObject({ ok: false, problem: 'changed', seq: 5 });
  });
  it('attack: a forged audit.pruned (claiming the missing start was pruned) is not linked with the key, and refused', () => {
    const c = chain(5);
    // The first two deleted, and a prune entry written by hand to cover it, linked without the key.
    const forgedPrune = entry(6, { action: PRUNED_ACTION, data: { through_seq: 2, through_hash: c[1]!.hash } });
    const rest = [...c.slice(2), { ...forgedPrune, hash: legacyChainHash(c[4]!.hash, forgedPrune) }];
    expect(verifyChain(KEY, rest, headOf(rest))).toMatchObject({ ok: false, problem: 'changed', seq: 6 });
  });
  it('a chain made before keying verifies once a keyed entry closes it, and only then', () => {
    const old = chain(3, 1, null, entry, legacyChainHash);
    expect(verifyChain(KEY, old, headOf(old))).toMatchObject({ ok: false, problem: 'unkeyed', seq: 1 });
    const reanchored = [...old, ...chain(2, 4, old[2]!.hash)];
    expect(verifyChain(KEY, reanchored, headOf(reanchored))).toEqual({ ok: true, count: 5, legacy: 3 });
    // An unkeyed link after a keyed one is a re-link without the key.
    const after = [...reanchored, ...chain(1, 6, reanchored[4]!.hash, entry, legacyChainHash)];
    expect(verifyChain(KEY, after, headOf(after))).toMatchObject({ ok: false, problem: 'changed', seq: 6 });
    // An edit in the unkeyed part, re-linked up to the keyed entry, breaks the keyed link.
    const edited = relinked(
      old.map((e) => (e.seq === 2 ? { ...e, outcome: 'forged' } : e)),
      legacyChainHash,
    );
    const broken = [...edited, ...reanchored.slice(3)];
    expect(verifyChain(KEY, broken, headOf(broken))).toMatchObject({ ok: false, problem: 'changed', seq: 4 });
  });
});
