// A refusal for want of a floating seat rolls its transaction back; seat.exhausted is then recorded
// in one of its own, at most once a minute per license (docs/machines.md, "Floating seats").
import { DomainError } from '../../domain/errors.js';
import type { Deps } from '../deps.js';
import type { Actor } from '../events/actor.js';
import type { FloatingSeatStore } from '../ports/floating-seat-store.js';

export type SeatsExhaustedDeps = Pick<Deps, 'clock'> & { store: Pick<FloatingSeatStore, 'recordSeatsExhausted'> };

/** Runs `work`; SEATS_EXHAUSTED is noted for the user's license and rethrown. */
export async function notingExhaustedSeats<T>(deps: SeatsExhaustedDeps, who: { applicationId: string; userId: string; hardwareId: string | null }, work: () => Promise<T>, actor: Actor): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'SEATS_EXHAUSTED') await deps.store.recordSeatsExhausted({ ...who, now: deps.clock.now() }, actor);
    throw error;
  }
}
