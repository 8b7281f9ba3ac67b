import { AsyncResource } from 'node:async_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers made in one turn of the event loop are written together, at the turn's end
 * (docs/performance.md, "Answers written per turn"). Each write to a socket whose reader sleeps
 * wakes that reader; on one machine (a load generator, or a reverse proxy in front of the
 * server on the same host) the kernel charges the wake-up to the writer, and written one answer
 * at a time every answer paid it. Held to the end of the turn, the first write wakes the
 * reader and the rest find it awake. An answer waits at most for the requests that arrived
 * with it to be answered; nothing is held across turns. Until then the reply is not yet `sent`, so
 * an async handler that returns the reply itself (a thenable) waits for the answer's end through
 * listeners on it: hot routes return their body instead.
 */
export function answersPerTurn(app: FastifyInstance): void {
  let held: Array<{ request: FastifyRequest; done: (error: Error | null, payload?: unknown) => void; payload: unknown }> = [];

  const writeHeld = () => {
    const answers = held;
    held = [];
    for (const { request, done, payload } of answers) {
      // Each answer's own failure stays its own: the answers after it are still written.
      try {
        done(null, payload);
      } catch (error) {
        request.log.error({ err: error }, 'writing an answer failed');
      }
    }
  };
  // Bound where no request's scope is open, so the held answers' remaining hooks do not run as
  // the actor of whichever request happened to answer first (docs/choices.md, actors).
  const writeHeldOutsideRequests = AsyncResource.bind(writeHeld);

  app.addHook('onSend', (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
    if (held.length === 0) setImmediate(writeHeldOutsideRequests);
    held.push({ request, done, payload });
  });
}
