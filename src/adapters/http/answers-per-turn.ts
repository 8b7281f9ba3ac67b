import { AsyncResource } from 'node:async_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Marks a response whose answer is held: a property, not a WeakSet, as it is set on every answer. */
const HELD = Symbol('answer held');
type Marked = { [HELD]?: boolean };

/**
 * Answers made in one turn of the event loop are written together, at the turn's end
 * (docs/performance-log.md, "Answers written per turn"). Each write to a socket whose reader sleeps
 * wakes that reader; on one machine (a load generator, or a reverse proxy in front of the
 * server on the same host) the kernel charges the wake-up to the writer, and written one answer
 * at a time every answer paid it. Held to the end of the turn, the first write wakes the
 * reader and the rest find it awake. An answer waits at most for the requests that arrived
 * with it to be answered; nothing is held across turns. Until then the reply is not yet `sent`, so
 * an async handler that returns the reply itself (a thenable) waits for the answer's end through
 * listeners on it: hot routes return their body instead. A handler that sends and returns nothing
 * makes Fastify send a second time; that second answer is dropped here, with a warning.
 */
export function answersPerTurn(app: FastifyInstance): void {
  let held: Array<{ reply: FastifyReply; done: (error: Error | null, payload?: unknown) => void; payload: unknown }> = [];

  const writeHeld = () => {
    const answers = held;
    held = [];
    for (const { reply, done, payload } of answers) {
      // An error answer made after this point (a later hook failing) is held again, as any other.
      (reply.raw as Marked)[HELD] = false;
      // Each answer's own failure stays its own: the answers after it are still written.
      try {
        done(null, payload);
      } catch (error) {
        reply.log.error({ err: error }, 'writing an answer failed');
      }
    }
  };
  // Bound where no request's scope is open, so the held answers' remaining hooks do not run as
  // the actor of whichever request happened to answer first (docs/choices.md, "Events and the audit log").
  const writeHeldOutsideRequests = AsyncResource.bind(writeHeld);

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
    const raw = reply.raw as Marked;
    if (raw[HELD] === true) {
      request.log.warn('an answer was sent twice (a handler that sends must return the reply): the second is dropped');
      return;
    }
    raw[HELD] = true;
    if (held.length === 0) setImmediate(writeHeldOutsideRequests);
    held.push({ reply, done, payload });
  });
}
