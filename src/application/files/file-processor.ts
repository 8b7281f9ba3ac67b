import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { JOB_MAX_ATTEMPTS, retryDelay, type StoredContents } from '../../domain/files.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { JobRecord } from '../records.js';
import { discardBlobs } from './uploads.js';
import { createWorkerPool } from '../worker-pool.js';
import { SYSTEM } from '../events/actor.js';

/** Staged bytes are read in pieces this large: the main thread sets the pace of processing, and at
 * the fs default of 64 KiB the per-piece work (a thread-pool read, a hand-off at every stage)
 * weighs on it (docs/performance-log.md). */
const READ_CHUNK_BYTES = 1024 * 1024;

/** A failure whose message is fit for the File's `processing_error`: stable wording, no server
 * paths or driver text. Any other failure is recorded as STORAGE_FAILED_MESSAGE, its detail
 * going to the log (onError) only. */
class ProcessingFailure extends Error {}

export const STORAGE_FAILED_MESSAGE = 'the contents could not be read, encrypted or stored (the server log has the detail)';

const processingErrorOf = (error: unknown): string => (error instanceof ProcessingFailure ? error.message : STORAGE_FAILED_MESSAGE);

/** A stream that counts and hashes (sha256) the bytes written to it: a meter passes them through
 * unchanged; a sealer puts out their encryption in the stored format (docs/encrypted-file-format.md). */
export interface ByteMeter {
  stream: NodeJS.ReadWriteStream;
  /** Of the bytes written; valid once the stream has ended. */
  result(): { size: number; sha256: string };
}

export type ByteMeterFactory = () => ByteMeter;

/** A sealer under the application's 32-byte files key. */
export type SealerFactory = (key: Uint8Array) => ByteMeter;

export interface FileProcessorOptions {
  workerId: string;
  concurrency: number;
  /** How often idle workers look for jobs queued by other instances. */
  pollMs: number;
  /** Encrypts and measures the plaintext of an encrypting job. */
  sealer: SealerFactory;
  /** Measures the plaintext of a plain job, and the stored bytes of an encrypting one. */
  meter: ByteMeterFactory;
  /** Reports a failed attempt, or a failure to reach the queue (job null); the processor never throws. */
  onError?: (error: unknown, job: JobRecord | null) => void;
}

/** Processes one claimed job: reads the staged upload, measures it, encrypts it when asked and
 * publishes it under the job's output key. Nothing is committed here: the caller records the
 * contents only once they are durably stored. */
async function produce(deps: Pick<Deps, 'blobs' | 'secrets'> & { store: ApplicationStore }, job: JobRecord, options: FileProcessorOptions, signal: AbortSignal): Promise<StoredContents> {
  // Each claim publishes under a key of its own (claims number the attempts): a worker that lost
  // its lease and finishes late can never overwrite what the job's new owner stored, whose bytes
  // differ when encrypted (fresh nonces), nor leave a blob where a superseded job's key was freed.
  const blobKey = `${job.outputKey}-${job.attempts}`;
  let key: Buffer | null = null;
  if (job.encrypt) {
    const app = await deps.store.findApplication(job.applicationId);
    if (app === null) throw new ProcessingFailure('the application no longer exists');
    key = Buffer.from(deps.secrets.open(app.filesKeySealed), 'base64');
  }
  const plain = key === null ? options.meter() : options.sealer(key);
  const stored = key === null ? null : options.meter();
  const stages: NodeJS.ReadWriteStream[] = [plain.stream];
  if (stored !== null) stages.push(stored.stream);
  // Opened last: from here on the pipeline owns it (and closes it, whatever happens).
  const source = await deps.blobs.read(job.stagingKey, undefined, { chunkBytes: READ_CHUNK_BYTES });
  if (source === null) throw new ProcessingFailure('the uploaded contents are missing from staging storage');
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  const streams: Array<NodeJS.ReadableStream | NodeJS.ReadWriteStream | NodeJS.WritableStream> = [source, ...stages, out];
  const flowing = pipeline(streams, { signal });
  // A lost lease stops the write too, even when every byte already sits in its buffers. (No
  // error given: one emitted before the store listens would be uncaught; it sees a premature close.)
  const stopWrite = () => out.destroy();
  signal.addEventListener('abort', stopWrite, { once: true });
  let info;
  try {
    [, info] = await Promise.all([flowing, deps.blobs.write(blobKey, out)]);
  } catch (error) {
    // Whichever side failed first, the other must not wait forever on it.
    out.destroy();
    await flowing.catch(() => undefined);
    throw error;
  } finally {
    signal.removeEventListener('abort', stopWrite);
  }
  const p = plain.result();
  const s = stored?.result() ?? p;
  if (s.size !== info.size) throw new ProcessingFailure('the stored size does not match the bytes written');
  return { blobKey, sizeBytes: p.size, sha256: p.sha256, storedSizeBytes: s.size, storedSha256: s.sha256, encrypted: job.encrypt };
}

/** What processing uses: the staged and stored blobs, the files key of an encrypting job, and the queue. */
type FileProcessorDeps = Pick<Deps, 'blobs' | 'clock' | 'files' | 'secrets'> & { store: ApplicationStore & JobQueue };

/** Runs one claimed job to its end: completed, retried later, or failed for good. */
async function runJob(deps: FileProcessorDeps, job: JobRecord, options: FileProcessorOptions): Promise<void> {
  const { workerId } = options;
  const lease = deps.files.jobLeaseMs;
  const aborter = new AbortController();
  // The heartbeat keeps the claim alive; losing it means another worker took over: stop.
  const heartbeat = setInterval(
    () => {
      deps.store.heartbeat(job.id, workerId, deps.clock.now(), lease).then(
        (held) => held || aborter.abort(new Error('lease lost')),
        () => undefined,
      );
    },
    Math.max(100, Math.floor(lease / 3)),
  );
  try {
    const contents = await produce(deps, job, options, aborter.signal);
    const done = await deps.store.completeJob(job.id, workerId, contents, deps.clock.now(), SYSTEM);
    // Lost: the job was taken over (its new owner publishes under its own key) or superseded;
    // what this claim published is nobody's.
    await discardBlobs(deps, done === 'lost' ? [contents.blobKey] : done);
  } catch (error) {
    if (aborter.signal.aborted) return;
    options.onError?.(error, job);
    const final = job.attempts >= JOB_MAX_ATTEMPTS;
    const done = await deps.store.failJob(job.id, workerId, processingErrorOf(error), deps.clock.now(), final ? null : retryDelay(job.attempts), SYSTEM);
    if (done !== 'lost') await discardBlobs(deps, done);
  } finally {
    clearInterval(heartbeat);
  }
}

export interface FileProcessor {
  start(): void;
  /** Looks for work now (after a local upload) instead of at the next poll. */
  wake(): void;
  /** Jobs being processed now (the shutdown message counts them). */
  jobsInHand(): number;
  /** Stops claiming, and waits for jobs in hand to finish. */
  stop(): Promise<void>;
  /** Claims and runs jobs until none is claimable; for tests and scripts. */
  drain(): Promise<number>;
}

/** Durable background processing: jobs live in the store, are claimed under a lease renewed by a
 * heartbeat, and retried a bounded number of times. A job whose worker died is taken over when
 * its lease lapses, so every accepted upload ends COMPLETED or FAILED. */
export function createFileProcessor(deps: FileProcessorDeps, options: FileProcessorOptions): FileProcessor {
  let jobsInHand = 0;
  let unlisten: (() => void) | null = null;
  const pool = createWorkerPool({
    concurrency: options.concurrency,
    pollMs: options.pollMs,
    async takeOne() {
      const job = await deps.store.claimJob(options.workerId, deps.clock.now(), deps.files.jobLeaseMs);
      if (job === null) return false;
      jobsInHand += 1;
      try {
        await runJob(deps, job, options);
      } finally {
        jobsInHand -= 1;
      }
      return true;
    },
    onError: (error) => options.onError?.(error, null),
  });
  return {
    start() {
      unlisten ??= deps.files.jobQueued.listen(pool.wake);
      pool.start();
    },
    wake: pool.wake,
    jobsInHand: () => jobsInHand,
    async stop() {
      unlisten?.();
      unlisten = null;
      await pool.stop();
    },
    drain: pool.drain,
  };
}
