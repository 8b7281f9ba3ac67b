// How a stored event is shown (docs/choices.md, "Events are data"): the store keeps an event's
// facts, and whatever shows the event (a webhook delivery, the audit log, the hash chain) renders
// them into the wire `data` and `changes` through this function, which compose.ts supplies.
import type { EventRecord } from './event-store.js';

export type StoredEvent = Pick<EventRecord, 'action' | 'occurredAt' | 'dataForm' | 'data' | 'changes'>;

export interface RenderedEvent {
  data: Record<string, unknown>;
  changes: Record<string, [unknown, unknown]> | null;
}

/** Deterministic: the same stored event renders the same at any time (the chain's hash covers it). */
export type RenderEvent = (event: StoredEvent) => RenderedEvent;

/** The event as the API shows it: its `data` and `changes` rendered. */
export const shownEvent = <E extends StoredEvent>(render: RenderEvent, e: E): E => (e.dataForm === 'rendered' ? e : { ...e, ...render(e), dataForm: 'rendered' });
