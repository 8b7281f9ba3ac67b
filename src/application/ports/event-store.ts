// Events and the audit log (docs/events.md). Changes write their events themselves, inside their
// own transactions (see store.ts); this port records what no change carries and reads the log.
// Instants are epoch milliseconds.
import type { Instant } from '../../domain/time.js';
import type { Actor } from '../events/actor-scope.js';
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
  data: Record<string, unknown>;
  changes: Record<string, [unknown, unknown]> | null;
  outcome: string;
  /** The entry's place in its application's hash chain; null until the chainer links it. */
  seq: number | null;
  hash: string | null;
}

export interface EventFilter {
  action?: string;
  actorType?: string;
  targetType?: string;
  targetId?: string;
  since?: Instant;
  until?: Instant;
}

export interface EventStore {
  /**
   * Records an outcome that is no committed change (a refused signature, a lockout, an owner's
   * sign-in), in a transaction of its own, as the running work's actor.
   */
  recordEvent(draft: EventDraft, now: Instant): Promise<void>;
  /** The application's events matching `filter`, newest first, those before `beforePos` when given. */
  listEvents(applicationId: string, filter: EventFilter, page: { limit: number; beforePos?: number }): Promise<EventRecord[]>;
}
