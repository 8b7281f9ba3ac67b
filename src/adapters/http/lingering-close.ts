import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Lingering close, so a client still sending reads an early answer (a 413) instead of a reset:
 * docs/api.md, "Request bodies over the limit". Past the bound the reset is the client's own
 * doing; the server holds nothing for it. */
export interface LingerLimits {
  /** At most this many body bytes are read and thrown away after the answer. */
  maxBytes: number;
  /** For at most this long after the answer. */
  maxMs: number;
}

/** 16 MiB covers any JSON body a client mistakes for a small one; 30 s as nginx's lingering_time. */
export const DEFAULT_LINGER: LingerLimits = { maxBytes: 16 * 1024 * 1024, maxMs: 30_000 };

/** Throws away the rest of `req`'s body from now on, counting it; past `maxBytes` the connection is
 * cut. Started before the answer goes out: Node's server would otherwise "dump" the unread body
 * itself, out of sight (no count, no bound). */
function discardBody(req: IncomingMessage, socket: Socket, maxBytes: number): void {
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > maxBytes) socket.destroy();
  });
  // A multipart parser that gave up may still be piped to the request and hold it paused.
  req.unpipe();
  req.resume();
}

/** After the answer: FIN, then close once the body is over, or when `maxMs` has passed. */
function closeWhenDrained(req: IncomingMessage, socket: Socket, maxMs: number): void {
  const close = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, maxMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // The answer is written: send FIN after it, keep the reading side open.
  socket.end();
  if (req.complete) return close();
  req.once('end', close);
  req.once('error', close);
}

/** Whether `req` announced a body (Content-Length above 0, or Transfer-Encoding) not all parsed yet.
 * Read from the framing: a bodiless request answered synchronously is not `complete` yet, and
 * closing then would drop the requests pipelined behind it. */
export function bodyStillArriving(req: IncomingMessage): boolean {
  if (req.complete || req.destroyed) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Registers the lingering close: every answer sent while its request body is still arriving
 * closes the connection, and lingers as above instead of closing at once. */
export function lingeringClose(app: FastifyInstance, limits: LingerLimits = DEFAULT_LINGER): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const req = request.raw;
    const socket = req.socket;
    if (bodyStillArriving(req)) {
      reply.header('connection', 'close');
      discardBody(req, socket, limits.maxBytes);
      // Node's HTTP server ends a `Connection: close` exchange with socket.destroySoon(), which
      // closes as soon as the answer is flushed; this socket lingers instead.
      socket.destroySoon = () => closeWhenDrained(req, socket, limits.maxMs);
    }
    done(null, payload);
  });
}
