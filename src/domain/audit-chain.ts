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
 * Recomputes a chain entry by entry (in `seq` order), so a long log never has to be held whole.
 * `start` is the seq the chain starts at: 1, or the one after what retention pruned (an
 * `audit.pruned` entry, itself chained, says through which seq). A pruned chain's first entry
 * cannot be recomputed (its predecessor is gone): its hash is trusted as the link to what came
 * before, and every later one is recomputed. `head` is the stored last linked seq and hash.
 */
export function createChainVerifier(start: number, head: { seq: number; hash: string } | null) {
  let previous: StoredEntry | null = null;
  let count = 0;
  let broken: ChainVerdict | null = null;
  return {
    /** Checks the next entry; false once the chain is broken (the verdict says where). */
    add(entry: StoredEntry): boolean {
      if (broken !== null) return false;
      const expectedSeq = previous === null ? start : previous.seq + 1;
      if (entry.seq !== expectedSeq) {
        broken = { ok: false, count, problem: 'missing', seq: expectedSeq, after: previous === null ? null : { seq: previous.seq, id: previous.id } };
        return false;
      }
      const trusted = previous === null && start > 1;
      if (!trusted && chainHash(previous?.hash ?? null, entry) !== entry.hash) {
        broken = { ok: false, count, problem: 'changed', seq: entry.seq, id: entry.id };
        return false;
      }
      previous = entry;
      count += 1;
      return true;
    },
    /** The verdict once every entry was added: the last entry must be the head. */
    verdict(): ChainVerdict {
      if (broken !== null) return broken;
      const last: StoredEntry | null = previous;
      const headSeq = head?.seq ?? 0;
      if (last === null ? headSeq > 0 : last.seq < headSeq) {
        // The newest entries are gone: the head still names them.
        return { ok: false, count, problem: 'missing', seq: (last?.seq ?? start - 1) + 1, after: last === null ? null : { seq: last.seq, id: last.id } };
      }
      if (last !== null && (head === null || last.seq !== head.seq || last.hash !== head.hash)) {
        return { ok: false, count, problem: 'head', seq: last.seq, headSeq };
      }
      return { ok: true, count };
    },
  };
}

/** verifyChain over entries in hand (in `seq` order), the prune they record included. */
export function verifyChain(entries: readonly StoredEntry[], head: { seq: number; hash: string } | null): ChainVerdict {
  const verifier = createChainVerifier(prunedThrough(entries) + 1, head);
  for (const entry of entries) if (!verifier.add(entry)) break;
  return verifier.verdict();
}
