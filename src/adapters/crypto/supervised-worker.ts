// A worker thread run from evaluated source, whose end is one event for its owner: whatever stops it
// reaches `stopped` once, as an error naming why, so the owner fails the work it held. It starts
// unref'd, so an idle worker never keeps the process alive (docs/architecture.md, "Worker threads").
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
