// A worker thread run from evaluated source (the same code runs from src/ under vitest and from
// dist/), whose end is one event for its owner: whatever stops it (a message it cannot deliver, an
// uncaught error, an exit) reaches `stopped` once, as an error naming why, so the owner fails the
// work the worker held. It starts unref'd: an owner refs it only while it holds work, so an idle
// worker never keeps the process alive.
import { Worker } from 'node:worker_threads';

export interface WorkerHandlers<M> {
  message(m: M): void;
  /** The worker has stopped; `error` says which worker and why (its cause: what it threw, if anything). */
  stopped(error: Error): void;
}

/** Starts a worker from `source`; `name` names it in the error its stop reports ("the <name> worker stopped"). */
export function startSupervisedWorker<M>(source: string, name: string, handlers: WorkerHandlers<M>): Worker {
  const worker = new Worker(source, { eval: true });
  worker.unref();
  // What went wrong first, kept to explain the exit that follows it.
  let cause: Error | null = null;
  worker.on('message', (m: M) => handlers.message(m));
  worker.on('messageerror', (error) => {
    cause ??= error;
    void worker.terminate();
  });
  worker.on('error', (error) => (cause ??= error));
  worker.on('exit', (code) => handlers.stopped(new Error(`the ${name} worker stopped (exit code ${code})`, cause === null ? undefined : { cause })));
  return worker;
}
