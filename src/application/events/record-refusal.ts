// Records a refusal after its change rolled back (docs/events.md, Audit log): the refused
// transaction wrote nothing, so the outcome is written in one of its own, then the refusal goes on.
import { DomainError } from '../../domain/errors.js';
import type { Deps } from '../deps.js';
import type { EventDraft } from './event-draft.js';
import type { EventStore } from '../ports/event-store.js';
import type { Actor } from './actor.js';

export type RefusalDeps = Pick<Deps, 'clock'> & { store: Pick<EventStore, 'recordEvent'> };

/** Runs `work`; a DomainError of `code` is recorded as `draft()` and rethrown. */
export async function recordingRefusal<T>(deps: RefusalDeps, code: string, draft: () => EventDraft, work: () => Promise<T>, actor: Actor): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError && error.code === code) await deps.store.recordEvent(draft(), deps.clock.now(), actor);
    throw error;
  }
}
