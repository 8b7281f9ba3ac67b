// Who is acting: the actor every event and audit entry records (docs/events.md, Audit log). The
// edge that knows (the HTTP plugins once a caller is authenticated, the CLI, background work)
// sets it; the store reads it when it writes an event inside the change's own transaction. It
// travels with the async context rather than through every use case and store method, so a
// change made anywhere is attributed without each signature carrying it (docs/choices.md,
// "Events and the audit log": actors travel with the async context).
import { AsyncLocalStorage } from 'node:async_hooks';

export type ActorType = 'owner' | 'admin_key' | 'end_user' | 'system';

export interface Actor {
  type: ActorType;
  /** The owner, admin key (its application) or end user; null while not yet known. */
  id: string | null;
  ip: string | null;
}

/** The actor of work no caller started (file processing, propagation, retention). */
export const SYSTEM: Actor = { type: 'system', id: null, ip: null };

/** A request's actor, changed in place once authentication says who the caller is. */
export interface ActorHolder {
  actor: Actor;
}

const scope = new AsyncLocalStorage<ActorHolder>();

/** Runs `work` (and everything it starts) as `holder`'s actor. */
export function actingAs<T>(holder: ActorHolder, work: () => T): T {
  return scope.run(holder, work);
}

/**
 * Names the running work's actor once a use case has authenticated who it is (an end user's
 * password, license code or session token checked), unless the edge already named one.
 */
export function identifyCurrentActor(id: string): void {
  const holder = scope.getStore();
  if (holder !== undefined && holder.actor.id === null) holder.actor = { ...holder.actor, id };
}

/** The actor of the running work: the innermost scope's, or SYSTEM outside any. */
export function currentActor(): Actor {
  return scope.getStore()?.actor ?? SYSTEM;
}
