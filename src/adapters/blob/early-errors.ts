// A body stream can fail before a store starts reading it (the client gone while the store makes
// its folder or checks the key); with no listener yet, that 'error' would be uncaught and end the
// process. The read that follows meets the error on the destroyed stream and rejects with it.
import { EventEmitter } from 'node:events';

export function keepEarlyErrors(body: unknown): void {
  if (body instanceof EventEmitter) body.on('error', () => undefined);
}
