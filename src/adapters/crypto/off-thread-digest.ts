// Size and sha256 of a byte stream, hashed in worker threads so the hashing runs beside the main
// thread's work (encryption, I/O) instead of after it: on a large upload sha256 costs as much CPU
// as AES-GCM, and the processor hashes both the plaintext and the stored bytes.
//
// The meter is a pass-through Transform: chunks go downstream untouched, and a copy is gathered
// into batch buffers that are transferred to a worker (no second copy), which sends each one
// back once hashed, for reuse. At most maxInFlightBytes of batches exist per meter; past that the
// Transform holds its callback until one comes back, so a slow worker slows the stream (normal
// backpressure) rather than growing memory.
//
// Workers are made lazily by the first meter that needs one (nothing starts at construction), a
// few at most, shared by all meters and kept for later ones. A worker is unref'd whenever no
// meter uses it, so it never keeps the process alive. A worker that fails or exits fails the
// meters using it (their streams error, so their job fails and is retried) and is replaced by
// the next meter; it can never take the process down.
import { availableParallelism } from 'node:os';
import { Transform, type TransformCallback } from 'node:stream';
import { Worker } from 'node:worker_threads';

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

export interface DigestPoolOptions {
  /** Worker threads at most; default: one per CPU, at least 2 (a job hashes two streams). */
  maxWorkers?: number;
  /** Bytes per transfer to a worker; default 1 MiB. */
  batchBytes?: number;
  /** Copied bytes a meter may have waiting in or for a worker; default 4 MiB. */
  maxInFlightBytes?: number;
}

export interface DigestPool {
  /** A new meter; its stream may be used once. */
  meter(): MeteredStream;
  /** Stops the workers now; meters using them fail. Later meters start new workers. */
  terminate(): Promise<void>;
}

const DEFAULT_BATCH_BYTES = 1024 * 1024;
// Four batches keep a worker busy while the main thread encrypts the next read; in measurements
// eight were no faster and only raised the server's peak memory (two meters per encrypted job).
const DEFAULT_MAX_IN_FLIGHT_BYTES = 4 * 1024 * 1024;

// Evaluated source rather than a module file: the same code then runs from src/ under vitest and
// from dist/ in production, with no worker path to resolve. Messages of one meter are handled in
// order, so its 'end' comes after all its batches.
const WORKER_SOURCE = `
'use strict';
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
const hashOf = (id) => {
  let hash = hashes.get(id);
  if (hash === undefined) hashes.set(id, (hash = createHash('sha256')));
  return hash;
};
parentPort.on('message', (m) => {
  if (m.op === 'data') {
    hashOf(m.id).update(new Uint8Array(m.buffer, 0, m.length));
    parentPort.postMessage({ op: 'ack', id: m.id, buffer: m.buffer }, [m.buffer]);
  } else if (m.op === 'end') {
    const sha256 = hashOf(m.id).digest('hex');
    hashes.delete(m.id);
    parentPort.postMessage({ op: 'digest', id: m.id, sha256 });
  } else if (m.op === 'drop') {
    hashes.delete(m.id);
  }
});
`;

type FromWorker = { op: 'ack'; id: number; buffer: ArrayBuffer } | { op: 'digest'; id: number; sha256: string };

/** What a worker calls back on, per meter. */
interface Listener {
  ack(buffer: ArrayBuffer): void;
  digest(sha256: string): void;
  fail(error: Error): void;
}

interface Slot {
  worker: Worker;
  listeners: Map<number, Listener>;
  /** The worker's 'error', kept to explain its exit. */
  error: Error | null;
}

export function createDigestPool(options: DigestPoolOptions = {}): DigestPool {
  const maxWorkers = options.maxWorkers ?? Math.max(2, availableParallelism());
  const batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
  const maxBatches = Math.max(1, Math.floor((options.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES) / batchBytes));
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1) throw new RangeError('maxWorkers must be a positive integer');
  if (!Number.isInteger(batchBytes) || batchBytes < 1) throw new RangeError('batchBytes must be a positive integer');
  const slots = new Set<Slot>();
  let nextId = 0;

  function startWorker(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    const slot: Slot = { worker, listeners: new Map(), error: null };
    worker.on('message', (m: FromWorker) => {
      const listener = slot.listeners.get(m.id);
      if (listener === undefined) return; // a meter destroyed meanwhile
      if (m.op === 'ack') listener.ack(m.buffer);
      else listener.digest(m.sha256);
    });
    worker.on('messageerror', (error) => {
      slot.error ??= error;
      void worker.terminate();
    });
    worker.on('error', (error) => (slot.error ??= error));
    worker.on('exit', (code) => {
      slots.delete(slot);
      const error = new Error(`the digest worker stopped (exit code ${code})`, slot.error ? { cause: slot.error } : undefined);
      const failed = [...slot.listeners.values()];
      slot.listeners.clear();
      for (const listener of failed) listener.fail(error);
    });
    slots.add(slot);
    return slot;
  }

  /** An idle worker, else a new one while under the cap, else the least busy. */
  function pickSlot(): Slot {
    let best: Slot | null = null;
    for (const slot of slots) {
      if (best === null || slot.listeners.size < best.listeners.size) best = slot;
    }
    if (best !== null && (best.listeners.size === 0 || slots.size >= maxWorkers)) return best;
    return startWorker();
  }

  function attach(slot: Slot, id: number, listener: Listener): void {
    if (slot.listeners.size === 0) slot.worker.ref(); // busy: like pending I/O, it keeps the process up
    slot.listeners.set(id, listener);
  }

  function detach(slot: Slot, id: number): void {
    if (!slot.listeners.delete(id)) return;
    if (slot.listeners.size === 0) slot.worker.unref();
  }

  function meter(): MeteredStream {
    const id = nextId++;
    let slot: Slot | null = null;
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
      ack(buffer) {
        free.push(buffer);
        const next = resume;
        resume = null;
        next?.();
      },
      digest(hex) {
        sha256 = hex;
        if (slot !== null) detach(slot, id);
        const done = flushed;
        flushed = null;
        done?.();
      },
      fail(error) {
        stream.destroy(error);
      },
    };

    // Attached only once bytes or the end arrive: a meter that is never used holds nothing.
    const worker = (): Worker => {
      if (slot === null) {
        slot = pickSlot();
        attach(slot, id, listener);
      }
      return slot.worker;
    };

    const send = () => {
      const bytes = batch as Uint8Array;
      worker().postMessage({ op: 'data', id, buffer: bytes.buffer, length: used }, [bytes.buffer as ArrayBuffer]);
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
          worker().postMessage({ op: 'end', id });
        } catch (error) {
          flushed = null;
          callback(error as Error);
        }
      },
      destroy(error, callback) {
        if (slot !== null && slot.listeners.has(id)) {
          // Frees the worker's hash; a worker already gone has nothing to free.
          slot.worker.postMessage({ op: 'drop', id });
          detach(slot, id);
        }
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

  return {
    meter,
    async terminate() {
      await Promise.all([...slots].map((slot) => slot.worker.terminate()));
    },
  };
}
