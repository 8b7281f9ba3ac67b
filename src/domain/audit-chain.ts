// The audit log's tamper evidence (docs/events.md, The hash chain): each link is an HMAC under a
// key derived from the master key, so whoever can write the database but lacks the key can neither
// change, insert nor re-link an entry. Pure: the key is a parameter.
import { createHash, createHmac } from 'node:crypto';

/** An entry as the chain covers it: the fields of the API's AuditEntry but its hash. */
export interface ChainedEntry {
  id: string;
  application_id: string;
  seq: number;
  /** ISO 8601 UTC, as the API shows it. */
  occurred_at: string;
  action: string;
  actor: { type: string; id: string | null; ip: string | null };
  target: { type: string; id: string; label: string | null };
  data: Record<string, unknown>;
  changes: Record<string, [unknown, unknown]> | null;
  outcome: string;
}

/** JSON with every object's keys sorted (by UTF-16 code units) and no whitespace; arrays keep their
 * order. Undefined object members are left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`not representable in JSON: ${typeof value}`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The chain's key (derived from the master key; never stored). */
export type ChainKey = Uint8Array;

const covered = (entry: ChainedEntry) => {
  const { id, application_id, seq, occurred_at, action, actor, target, data, changes, outcome } = entry;
  return { id, application_id, seq, occurred_at, action, actor, target, data, changes, outcome };
};

/** HMAC-SHA-256 (lowercase hex) under `key` of the previous entry's hash ('' for the first) and the entry's canonical JSON. */
export function chainHash(key: ChainKey, previousHash: string | null, entry: ChainedEntry): string {
  return createHmac('sha256', key)
    .update(previousHash ?? '')
    .update(canonicalJson(covered(entry)))
    .digest('hex');
}

/** The unkeyed link of chains made before keying: plain SHA-256 of the same bytes. */
export function legacyChainHash(previousHash: string | null, entry: ChainedEntry): string {
  return createHash('sha256')
    .update(previousHash ?? '')
    .update(canonicalJson(covered(entry)))
    .digest('hex');
}

/** The seal an entry gets when its change records it, before it has a place in the chain: the
 * chainer links only sealed rows, so a row written into the database by hand is never linked. */
export function entrySeal(key: ChainKey, entry: Omit<ChainedEntry, 'seq'> & { seq?: number; data_form?: 'facts' }): string {
  const { seq: _seq, ...rest } = { ...covered({ ...entry, seq: 0 }), ...(entry.data_form === undefined ? {} : { data_form: entry.data_form }) };
  return createHmac('sha256', key).update('seal\n').update(canonicalJson(rest)).digest('hex');
}

/** What verification found: the chain is whole, or the first place it breaks. */
export type ChainVerdict =
  | { ok: true; count: number; legacy: number }
  | { ok: false; count: number; problem: 'changed'; seq: number; id: string }
  | { ok: false; count: number; problem: 'missing'; seq: number; after: { seq: number; id: string } | null }
  | { ok: false; count: number; problem: 'head'; seq: number; headSeq: number }
  /** Entries from `seq` on are linked without the key (re-linked by hand, or never re-anchored). */
  | { ok: false; count: number; problem: 'unkeyed'; seq: number }
  /** An exported head (seq, hash) the chain no longer holds: its tail was cut or rewritten. */
  | { ok: false; count: number; problem: 'anchor'; seq: number; lastSeq: number | null }
  /** The `audit.pruned` entry that says where the chain starts is not a verified part of it. */
  | { ok: false; count: number; problem: 'pruned'; seq: number };

/** An entry as stored: the chained fields and the hash the chainer wrote. */
export type StoredEntry = ChainedEntry & { hash: string };

/** The audit-only action a retention purge records, with `data.through_seq` (the last seq it removed) and `data.through_hash` (its hash). */
export const PRUNED_ACTION = 'audit.pruned';
/** The audit-only action that re-anchors a chain made before keying: its keyed link covers every unkeyed entry before it. */
export const REKEYED_ACTION = 'audit.rekeyed';

/** Where a chain starts: seq 1, or after what a prune removed (and that entry's hash, when the prune recorded it). */
export interface ChainStart {
  seq: number;
  previousHash: string | null;
}

/** The start a (verified) `audit.pruned` entry vouches for; seq 1 without one. */
export function startAfterPrune(pruned: ChainedEntry | null): ChainStart {
  const through = pruned?.data['through_seq'];
  const hash = pruned?.data['through_hash'];
  if (typeof through !== 'number') return { seq: 1, previousHash: null };
  return { seq: through + 1, previousHash: typeof hash === 'string' ? hash : null };
}

/** Recomputes a chain entry by entry, so a long log never has to be held whole (unkeyed prefixes and
 * pruned starts: docs/events.md, "Chains made before keying", "Retention"). `head`: the stored head;
 * `anchor`: a head exported earlier, which the chain must still hold. */
export function createChainVerifier(key: ChainKey, start: ChainStart, head: { seq: number; hash: string } | null, anchor: { seq: number; hash: string } | null = null) {
  let previous: StoredEntry | null = null;
  let count = 0;
  let legacy = 0;
  let keyedSeen = false;
  let lastLegacy = false;
  let broken: ChainVerdict | null = null;
  return {
    /** Checks the next entry; false once the chain is broken (the verdict says where). */
    add(entry: StoredEntry): boolean {
      if (broken !== null) return false;
      const expectedSeq = previous === null ? start.seq : previous.seq + 1;
      if (entry.seq !== expectedSeq) {
        broken = { ok: false, count, problem: 'missing', seq: expectedSeq, after: previous === null ? null : { seq: previous.seq, id: previous.id } };
        return false;
      }
      const previousHash = previous === null ? start.previousHash : previous.hash;
      const trusted = previous === null && start.seq > 1 && start.previousHash === null;
      if (trusted || chainHash(key, previousHash, entry) === entry.hash) {
        keyedSeen ||= !trusted;
        lastLegacy = false;
      } else if (!keyedSeen && legacyChainHash(previousHash, entry) === entry.hash) {
        legacy += 1;
        lastLegacy = true;
      } else {
        broken = { ok: false, count, problem: 'changed', seq: entry.seq, id: entry.id };
        return false;
      }
      if (anchor !== null && entry.seq === anchor.seq && entry.hash !== anchor.hash) {
        broken = { ok: false, count, problem: 'anchor', seq: anchor.seq, lastSeq: entry.seq };
        return false;
      }
      previous = entry;
      count += 1;
      return true;
    },
    /** The verdict once every entry was added: the last entry must be the head, and keyed. */
    verdict(): ChainVerdict {
      if (broken !== null) return broken;
      const last: StoredEntry | null = previous;
      const headSeq = head?.seq ?? 0;
      if (last === null ? headSeq > 0 : last.seq < headSeq) {
        // The newest entries are gone: the head still names them.
        return { ok: false, count, problem: 'missing', seq: (last?.seq ?? start.seq - 1) + 1, after: last === null ? null : { seq: last.seq, id: last.id } };
      }
      if (last !== null && (head === null || last.seq !== head.seq || last.hash !== head.hash)) {
        return { ok: false, count, problem: 'head', seq: last.seq, headSeq };
      }
      if (anchor !== null && anchor.seq >= start.seq && (last === null || last.seq < anchor.seq)) {
        return { ok: false, count, problem: 'anchor', seq: anchor.seq, lastSeq: last?.seq ?? null };
      }
      if (last !== null && lastLegacy) return { ok: false, count, problem: 'unkeyed', seq: last.seq - legacy + 1 };
      return { ok: true, count, legacy };
    },
  };
}

/** verifyChain over entries in hand (in `seq` order), the newest prune among them included. */
export function verifyChain(key: ChainKey, entries: readonly StoredEntry[], head: { seq: number; hash: string } | null, anchor: { seq: number; hash: string } | null = null): ChainVerdict {
  const pruned = entries.filter((e) => e.action === PRUNED_ACTION).at(-1) ?? null;
  const verifier = createChainVerifier(key, startAfterPrune(pruned), head, anchor);
  for (const entry of entries) if (!verifier.add(entry)) break;
  return verifier.verdict();
}
