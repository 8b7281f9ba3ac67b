// Every request runs in an actor scope (application/events/actor-scope.ts) so the events its
// changes write name who made them: the API decides the actor's type, the caller's address its
// ip, and the API's authentication its id once known (identifyActor).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Actor, type ActorHolder, type ActorType, actingAs } from '../../application/events/actor-scope.js';
import { callerOf } from './request-parts.js';

const holders = new WeakMap<FastifyRequest, ActorHolder>();

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

export function actorScopeHooks(app: FastifyInstance): void {
  // Callback-style hooks: they run on every request. The scope is entered on request and entered
  // again before validation, because a parsed body resumes the request from the socket's events,
  // outside the scope the first hook opened.
  app.addHook('onRequest', (request, _reply, done) => {
    const holder: ActorHolder = { actor: { type: actorTypeOf(request.url), id: null, ip: addressOf(request) } };
    holders.set(request, holder);
    actingAs(holder, done);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const holder = holders.get(request);
    if (holder === undefined) done();
    else actingAs(holder, done);
  });
}

/** Names the request's actor once its API authenticated the caller. */
export function identifyActor(request: FastifyRequest, actor: Pick<Actor, 'type' | 'id'>): void {
  const holder = holders.get(request);
  if (holder !== undefined) holder.actor = { ...holder.actor, ...actor };
}
