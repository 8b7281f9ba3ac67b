// Events and the audit log (docs/events.md). Changes write their events themselves, inside their
// own transactions (see store.ts); this port records what no change carries and reads the log.
// Instants are epoch milliseconds.
import type { Instant } from '../../domain/time.js';
import type { Actor } from '../events/actor.js';
import type { EventDraft, EventTarget } from '../events/event-draft.js';

export interface EventRecord {
  id: string;
  applicationId: string;
  /** Insertion order: the log's paging cursor. */
  pos: number;
  occurredAt: Instant;
  action: string;
  actor: Actor;
  target: EventTarget;
  /** `facts`: what the change recorded (ports/event-renderer.ts renders it); `rendered`: the wire form, as rows written before facts hold it. */
  dataForm: DataForm;
  data: Record<string, unknown>;
  changes: Record<string, [unknown, unknown]> | null;
  outcome: string;
  /** The entry's place in its application's hash chain; null until the chainer links it. */
  seq: number | null;
  hash: string | null;
  /** The keyed seal its change wrote with it (domain/audit-chain.ts entrySeal); null on a row written otherwise. */
  seal: string | null;
}

/** How an event's `data` and `changes` are stored (docs/choices.md, "Events are data"). */
export type DataForm = 'facts' | 'rendered';

export interface EventFilter {
  action?: string;
  actorType?: string;
  targetType?: string;
  targetId?: string;
  since?: Instant;
  until?: Instant;
}

export interface EventStore {
  /** Records an outcome that is no committed change (a refused signature, a lockout, an owner's
   * sign-in), in a transaction of its own, as `actor`. */
  recordEvent(draft: EventDraft, now: Instant, actor: Actor): Promise<void>;
  /** The application's events matching `filter`, newest first, those before `beforePos` when given. */
  listEvents(applicationId: string, filter: EventFilter, page: { limit: number; beforePos?: number }): Promise<EventRecord[]>;
  /** Links up to `limit` unchained events into their hash chains, a transaction per application;
   * how many it took up. A row whose seal does not verify is marked 'unlinked', never taken up
   * again; an application whose head another instance holds is skipped, not waited for. */
  chainEvents(limit: number): Promise<number>;
  /** The application's rows outside its chain (pending, or refused by the chainer), in insertion order. */
  unlinkedEvents(applicationId: string, limit: number): Promise<EventRecord[]>;
  /** The application's chained entry of `action` with the highest seq, or null. */
  newestChained(applicationId: string, action: string): Promise<EventRecord | null>;
  /** Records an `audit.rekeyed` entry for each application whose chain head was linked before
   * keying, so that its keyed link covers the unkeyed entries; how many. */
  reanchorUnkeyedChains(now: Instant, actor: Actor): Promise<number>;
  /** An application's chained entries with seq above `afterSeq`, in seq order. */
  chainedEvents(applicationId: string, afterSeq: number, limit: number): Promise<EventRecord[]>;
  /** The application's chain head: the last linked seq and hash, or null before the first. */
  chainHead(applicationId: string): Promise<{ seq: number; hash: string } | null>;
  /** Retention: deletes each application's chained entries up to its newest one older than
   * `before` (a prefix of the chain), recording an `audit.pruned` entry that says through which
   * seq and that entry's hash; how many it deleted. */
  pruneEvents(before: Instant, now: Instant, actor: Actor): Promise<number>;
}
