// The audit log's tamper evidence (docs/events.md, The hash chain): each application's entries
// are chained in `seq` order, each entry's hash covering the previous hash and the entry's
// canonical JSON, so changing or removing an entry breaks every hash after it. Pure: the chainer
// links entries with it and `audit verify` recomputes the chain with it.
import { createHash } from 'node:crypto';

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

/**
 * JSON with every object's keys sorted (by UTF-16 code units) and no whitespace; arrays keep their
 * order. Undefined object members are left out, as JSON.stringify does.
 */
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

/** SHA-256 (lowercase hex) of the previous entry's hash ('' for the first) followed by the entry's canonical JSON. */
export function chainHash(previousHash: string | null, entry: ChainedEntry): string {
  const { id, application_id, seq, occurred_at, action, actor, target, data, changes, outcome } = entry;
  const covered = { id, application_id, seq, occurred_at, action, actor, target, data, changes, outcome };
  return createHash('sha256')
    .update(previousHash ?? '')
    .update(canonicalJson(covered))
    .digest('hex');
}

/** What verification found: the chain is whole, or the first place it breaks. */
export type ChainVerdict =
  | { ok: true; count: number }
  | { ok: false; count: number; problem: 'changed'; seq: number; id: string }
  | { ok: false; count: number; problem: 'missing'; seq: number; after: { seq: number; id: string } | null }
  | { ok: false; count: number; problem: 'head'; seq: number; headSeq: number };

/** An entry as stored: the chained fields and the hash the chainer wrote. */
export type StoredEntry = ChainedEntry & { hash: string };

/** The audit-only action a retention purge records, with `data.through_seq`: the last seq it removed. */
export const PRUNED_ACTION = 'audit.pruned';

/** The last seq retention removed, as the newest `audit.pruned` entry vouches; 0 when none did. */
export function prunedThrough(entries: readonly ChainedEntry[]): number {
  let through = 0;
  for (const e of entries) {
    const seq = e.action === PRUNED_ACTION ? e.data['through_seq'] : undefined;
    if (typeof seq === 'number' && seq > through) through = seq;
  }
  return through;
}

/**
 * Recomputes a chain from `entries` (in `seq` order) against the stored `head` (the last linked
 * seq and hash). When retention pruned older entries (an `audit.pruned` entry, itself chained,
 * says through which seq), the oldest remaining entry is the chain's start: its hash is trusted as
 * the link to what came before, and every later one is recomputed.
 */
export function verifyChain(entries: readonly StoredEntry[], head: { seq: number; hash: string } | null): ChainVerdict {
  const start = prunedThrough(entries) + 1;
  let previous: StoredEntry | null = null;
  for (const [i, entry] of entries.entries()) {
    const expectedSeq: number = previous === null ? start : previous.seq + 1;
    if (entry.seq !== expectedSeq) {
      return { ok: false, count: i, problem: 'missing', seq: expectedSeq, after: previous === null ? null : { seq: previous.seq, id: previous.id } };
    }
    // The start of a pruned chain cannot be recomputed (its predecessor is gone); later entries are.
    const trusted = previous === null && start > 1;
    if (!trusted && chainHash(previous?.hash ?? null, entry) !== entry.hash) {
      return { ok: false, count: i, problem: 'changed', seq: entry.seq, id: entry.id };
    }
    previous = entry;
  }
  const last: StoredEntry | null = previous;
  const headSeq = head?.seq ?? 0;
  if (last === null ? headSeq > 0 : last.seq < headSeq) {
    // The newest entries are gone: the head still names them.
    return { ok: false, count: entries.length, problem: 'missing', seq: (last?.seq ?? start - 1) + 1, after: last === null ? null : { seq: last.seq, id: last.id } };
  }
  if (last !== null && (head === null || last.seq !== head.seq || last.hash !== head.hash)) {
    return { ok: false, count: entries.length, problem: 'head', seq: last.seq, headSeq };
  }
  return { ok: true, count: entries.length };
}
