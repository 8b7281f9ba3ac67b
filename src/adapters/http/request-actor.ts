// Each request's actor (docs/events.md, Actors), kept on the request (decorateRequest): the API
// decides its type, the caller's address its ip, and the API's authentication its id once known
// (identifyActor). Routes pass `request.actor` to the use cases that record events.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor, ActorType } from '../../application/events/actor.js';
import { callerOf } from './request-parts.js';

/** The actor type of a request by its API; anything outside the three APIs acts as the system. */
function actorTypeOf(url: string): ActorType {
  if (url.startsWith('/api/console/')) return 'owner';
  if (url.startsWith('/api/admin/')) return 'admin_key';
  if (url.startsWith('/api/integration/')) return 'end_user';
  return 'system';
}

/** The caller's address, or null when it is not one (the API refuses such a request itself). */
function addressOf(request: FastifyRequest): string | null {
  try {
    return callerOf(request).ip;
  } catch {
    return null;
  }
}

export function requestActors(app: FastifyInstance): void {
  // Set on request, before any route runs (declared with the rest of the request's state: request-state.ts).
  app.addHook('onRequest', (request, _reply, done) => {
    request.actor = { type: actorTypeOf(request.url), id: null, ip: addressOf(request) };
    done();
  });
}

/** Names the request's actor once its API authenticated the caller. */
export function identifyActor(request: FastifyRequest, actor: Pick<Actor, 'type' | 'id'>): void {
  request.actor = { ...request.actor, ...actor };
}
