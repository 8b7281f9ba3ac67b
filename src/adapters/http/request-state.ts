// What the HTTP adapter keeps about one request between its hooks and its route, declared once:
// Fastify makes every request with these fields (decorateRequest), so a request carries its own
// state and no side table outlives or misses it (docs/architecture.md, "Request state").
import type { FastifyInstance } from 'fastify';
import type { ConsoleCaller } from '../../application/console/browser-sessions.js';
import type { Caller } from '../../application/deps.js';
import type { Actor } from '../../application/events/actor.js';
import type { ApplicationRecord } from '../../application/records.js';
import type { ErrorCode } from '../../domain/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who acts, for the events the request's use cases record (request-actor.ts sets it on request). */
    actor: Actor;
    /** The client's address as parsed (request-parts.ts, callerOf); undefined until asked, null when it is no address. */
    caller: Caller | null | undefined;
    /** The error code the answer carried, for whoever looks at it after it went out (the metrics count refusals by code); sendError notes it. */
    answeredErrorCode: ErrorCode | null;
    /** The timer that cuts a body slow to arrive (server.ts, bodyDeadline). */
    bodyTimer: NodeJS.Timeout | null;
    /** The admin API: the admin key's application, set by its scope's onRequest hook. */
    adminApplication: ApplicationRecord | null;
    /** The console: who the request was authenticated as, set by its plugin's onRequest hook. */
    consoleCaller: ConsoleCaller | null;
    /** The integration API: the application whose keys sign the answer; undefined until looked for, null when its key or secret was refused. */
    signingApplication: ApplicationRecord | null | undefined;
    /** The integration API: the stored digest of the file the answer streams, which it is signed by. */
    storedSha256: string | null;
    /** The integration API: a JSON body's bytes as received, for the request signature's body digest. */
    rawJsonBody: Buffer | null;
  }
}

/** Declares every field above on the root instance, before any plugin: each request starts with them unset. */
export function declareRequestState(app: FastifyInstance): void {
  // Null until request-actor.ts's onRequest hook sets it, before any route runs.
  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('caller', undefined);
  app.decorateRequest('answeredErrorCode', null);
  app.decorateRequest('bodyTimer', null);
  app.decorateRequest('adminApplication', null);
  app.decorateRequest('consoleCaller', null);
  app.decorateRequest('signingApplication', undefined);
  app.decorateRequest('storedSha256', null);
  app.decorateRequest('rawJsonBody', null);
}
