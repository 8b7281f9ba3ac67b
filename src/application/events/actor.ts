// Who is acting: the actor every event and audit entry records (docs/events.md, Actors). The edge
// that knows (an HTTP API, the CLI, background work) builds it and passes it to the use case, which
// passes it to the store operation that writes the event (docs/choices.md, "Actors are parameters").
export type ActorType = 'owner' | 'admin_key' | 'end_user' | 'system';

export interface Actor {
  type: ActorType;
  /** The owner, admin key (its application) or end user; null while not yet known. */
  id: string | null;
  ip: string | null;
}

/** The actor of work no caller started (file processing, propagation, retention, chaining). */
export const SYSTEM: Actor = { type: 'system', id: null, ip: null };

// The actor once a use case has checked who it is (an end user's password, license code or
// session token), unless the edge already named one.
export const identified = (actor: Actor, id: string): Actor => (actor.id === null ? { ...actor, id } : actor);
