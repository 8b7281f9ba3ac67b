// How the server stops on SIGINT or SIGTERM (docs/deployment.md, "Stopping the server"). Whatever a
// stop cuts off is what a crash would leave: staged uploads no row refers to (the orphan sweep removes
// them), temp files (cleared at the next start) and claimed jobs (retaken when their lease lapses).
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface InFlight {
  uploads: number;
  requests: number;
}

/** Counts the requests being served, uploads apart (routes marked `config: { upload: true }`). */
export function trackRequests(app: FastifyInstance): () => InFlight {
  // Keyed by the raw answer, so that one listener function serves every request.
  const open = new Map<object, FastifyRequest>();
  function forget(this: object) {
    open.delete(this);
  }
  app.addHook('onRequest', (request, reply, done) => {
    open.set(reply.raw, request);
    // 'close' comes once, when the answer is sent or the connection is gone, whichever is first.
    reply.raw.on('close', forget);
    done();
  });
  return () => {
    let uploads = 0;
    for (const request of open.values()) if ((request.routeOptions.config as { upload?: boolean } | undefined)?.upload) uploads += 1;
    return { uploads, requests: open.size - uploads };
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "1 upload and 2 file jobs", or '' when nothing is in flight. */
export function describeWork(inFlight: InFlight, jobs: number): string {
  const parts: string[] = [];
  if (inFlight.uploads > 0) parts.push(plural(inFlight.uploads, 'upload'));
  if (inFlight.requests > 0) parts.push(plural(inFlight.requests, 'request'));
  if (jobs > 0) parts.push(plural(jobs, 'file-processing job'));
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

export interface ShutdownOptions {
  app: FastifyInstance;
  inFlight: () => InFlight;
  /** File jobs being processed by this instance. */
  jobsInHand: () => number;
  graceSeconds: number;
  /** After the listener closed: finish the jobs in hand (processor.stop). */
  stopWork: () => Promise<void>;
  /** Last: close the database. */
  closeStore: () => Promise<void>;
  say: (line: string) => void;
  exit: (code: number) => never;
  /** Milliseconds, for telling a relayed copy of a signal from a second press; tests pass their own. */
  now?: () => number;
}

/** A repeat of the first signal within this long is the same press: on a terminal, Ctrl-C reaches
 * `npm start` and the server alike, and npm relays its copy (docs/deployment.md). */
export const SAME_PRESS_MS = 1_000;

export type SignalKind = 'first' | 'copy' | 'again';

/** Sorts the signals one process receives into the first, copies of it, and a second press. */
export function signalSorter(now: () => number, windowMs = SAME_PRESS_MS): (signal: NodeJS.Signals) => SignalKind {
  let first: { signal: NodeJS.Signals; at: number } | null = null;
  return (signal) => {
    const at = now();
    if (first === null) {
      first = { signal, at };
      return 'first';
    }
    return signal === first.signal && at - first.at < windowMs ? 'copy' : 'again';
  };
}

/** How long a forced stop lets cut-off handlers clean up before the process exits. */
const CUT_OFF_CLEANUP_MS = 2_000;

export function stopOnSignals(options: ShutdownOptions): void {
  const sort = signalSorter(options.now ?? (() => performance.now()));
  const onSignal = (signal: NodeJS.Signals) => {
    const kind = sort(signal);
    if (kind === 'copy') return;
    if (kind === 'again') {
      options.say(`${signal} again: stopping now`);
      options.exit(1);
    }
    const waiting = describeWork(options.inFlight(), options.jobsInHand());
    const again = signal === 'SIGINT' ? 'press Ctrl-C again' : `send ${signal} again`;
    options.say(waiting === '' ? `${signal}: shutting down` : `${signal}: shutting down; waiting for ${waiting} to finish, up to ${options.graceSeconds} s; ${again} to stop now`);
    const closed = options.app.close();
    const graceTimer = setTimeout(() => {
      const left = describeWork(options.inFlight(), options.jobsInHand());
      options.say(`stopped waiting after ${options.graceSeconds} s${left ? `: cutting off ${left}` : ''}`);
      options.app.server.closeAllConnections();
      const cleanup = setTimeout(() => options.exit(1), CUT_OFF_CLEANUP_MS);
      cleanup.unref();
      void closed.then(
        () => options.exit(1),
        () => options.exit(1),
      );
    }, options.graceSeconds * 1000);
    graceTimer.unref();
    void closed
      .then(() => options.stopWork())
      .then(() => {
        clearTimeout(graceTimer);
        return options.closeStore();
      })
      .then(
        () => options.exit(0),
        (error: unknown) => {
          options.say(`shutdown failed: ${(error as Error)?.message ?? String(error)}`);
          options.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
