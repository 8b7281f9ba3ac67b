// Size and sha256 of a byte stream, hashed in a worker thread so the hashing runs beside the main
// thread's work instead of after it. A pass-through Transform whose batches in flight are bounded, so a
// slow worker slows the stream rather than growing memory (docs/architecture.md, "Worker threads").
import { Transform, type TransformCallback } from 'node:stream';
import type { CryptoWorkers, Listener, WorkerLease } from './crypto-workers.js';

export interface Measured {
  size: number;
  /** Lower-case hex. */
  sha256: string;
}

export interface MeteredStream {
  /** Pass-through: what is written comes out unchanged. */
  stream: Transform;
  /** The size and sha256 of everything that went through; only once the stream has ended. */
  result(): Measured;
}

export interface MeterOptions {
  /** Bytes per transfer to a worker; default 1 MiB. */
  batchBytes?: number;
  /** Copied bytes a meter may have waiting in or for a worker; default 4 MiB. */
  maxInFlightBytes?: number;
}

const DEFAULT_BATCH_BYTES = 1024 * 1024;
// Four batches keep a worker busy while the main thread reads the next piece; in measurements
// eight were no faster and only raised the server's peak memory.
const DEFAULT_MAX_IN_FLIGHT_BYTES = 4 * 1024 * 1024;

/** A new meter, hashing on `workers`; its stream may be used once. */
export function createMeter(workers: CryptoWorkers, options: MeterOptions = {}): MeteredStream {
  const batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
  const maxBatches = Math.max(1, Math.floor((options.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES) / batchBytes));
  if (!Number.isInteger(batchBytes) || batchBytes < 1) throw new RangeError('batchBytes must be a positive integer');
  const id = workers.nextId();
  let lease: WorkerLease | null = null;
  let size = 0;
  let sha256: string | null = null;
  const free: ArrayBuffer[] = [];
  let allocated = 0;
  let batch: Uint8Array | null = null;
  let used = 0;
  /** Copying that waits for a batch buffer to come back. */
  let resume: (() => void) | null = null;
  let flushed: TransformCallback | null = null;

  const listener: Listener = {
    message(m) {
      if (m.op === 'ack') {
        free.push(m.buffer);
        const next = resume;
        resume = null;
        next?.();
      } else if (m.op === 'digest') {
        sha256 = m.sha256;
        lease?.release(false);
        const done = flushed;
        flushed = null;
        done?.();
      }
    },
    fail(error) {
      stream.destroy(error);
    },
  };

  // Leased only once bytes or the end arrive: a meter that is never used holds nothing.
  const worker = (): WorkerLease => (lease ??= workers.lease(id, listener));

  const send = () => {
    const bytes = batch as Uint8Array;
    worker().post({ op: 'data', id, buffer: bytes.buffer, length: used }, [bytes.buffer as ArrayBuffer]);
    batch = null;
    used = 0;
  };

  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      this.push(chunk);
      let offset = 0;
      // Runs again from an ack when every batch buffer is out.
      const copy = () => {
        try {
          while (offset < chunk.length) {
            if (batch === null) {
              const buffer = free.pop() ?? (allocated < maxBatches ? (allocated++, new ArrayBuffer(batchBytes)) : null);
              if (buffer === null) {
                resume = copy;
                return;
              }
              batch = new Uint8Array(buffer);
            }
            const n = Math.min(chunk.length - offset, batch.length - used);
            batch.set(chunk.subarray(offset, offset + n), used);
            used += n;
            offset += n;
            if (used === batch.length) send();
          }
        } catch (error) {
          callback(error as Error);
          return;
        }
        callback();
      };
      copy();
    },
    flush(callback) {
      try {
        if (used > 0) send();
        flushed = callback;
        worker().post({ op: 'end', id });
      } catch (error) {
        flushed = null;
        callback(error as Error);
      }
    },
    destroy(error, callback) {
      // Frees the worker's hash; a worker already gone has nothing to free.
      lease?.release(true);
      resume = null;
      callback(error);
    },
  });

  return {
    stream,
    result() {
      if (sha256 === null) throw new Error('the meter has not finished');
      return { size, sha256 };
    },
  };
}
