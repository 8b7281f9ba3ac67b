// Encryption of file contents (and the plaintext's sha256) in a worker thread, so the main thread only
// reads, hands over and writes; the bytes are createEncryptStream's, in batches of whole chunks kept in
// order and bounded in flight (docs/architecture.md, "Worker threads"; docs/performance-log.md).
import { Duplex } from 'node:stream';
import { KEY_LENGTH, planEncryptedFile, type EncryptOptions } from '../../file-format/encrypted-file.js';
import type { CryptoWorkers, Listener, WorkerLease } from './crypto-workers.js';
import type { Measured } from './off-thread-digest.js';

export interface SealedStream {
  /** Plaintext in, the encrypted file (header, then chunks) out. */
  stream: Duplex;
  /** The size and sha256 of the plaintext; only once the stream has ended. */
  result(): Measured;
}

export interface SealerOptions {
  /** Chunks per batch sent to the worker; default 16 (1 MiB at the default chunk size). */
  batchChunks?: number;
  /** Batches out at the worker at once; default 4. */
  maxInFlightBatches?: number;
  /** The format's chunk size and nonce prefix (tests reproduce vectors with them). */
  format?: EncryptOptions;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** A new sealing stream under `key` (the application's 32-byte files key); it may be used once. */
export function createSealer(workers: CryptoWorkers, key: Uint8Array, options: SealerOptions = {}): SealedStream {
  const plan = planEncryptedFile(options.format);
  const batchChunks = options.batchChunks ?? 16;
  const maxInFlight = options.maxInFlightBatches ?? 4;
  if (!Number.isInteger(batchChunks) || batchChunks < 1) throw new RangeError('batchChunks must be a positive integer');
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError('maxInFlightBatches must be a positive integer');
  if (key.length !== KEY_LENGTH) throw new RangeError(`the files encryption key must be ${KEY_LENGTH} bytes`);
  const keyCopy = Uint8Array.from(key);
  const batchBytes = plan.chunkSize * batchChunks;
  const id = workers.nextId();
  let size = 0;
  let sha256: string | null = null;
  let failure: Error | null = null;
  const sealed: Array<Waiter<Buffer>> = [];
  let digest: Waiter<string> | null = null;
  const free: ArrayBuffer[] = [];

  const listener: Listener = {
    message(m) {
      if (m.op === 'sealed') {
        free.push(m.buffer);
        sealed.shift()?.resolve(Buffer.from(m.out));
      } else if (m.op === 'digest') {
        digest?.resolve(m.sha256);
      }
    },
    fail(error) {
      failure = error;
      for (const waiter of sealed.splice(0)) waiter.reject(error);
      digest?.reject(error);
    },
  };

  async function* seal(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    const lease: WorkerLease = workers.lease(id, listener);
    try {
      lease.post({ op: 'key', id, key: keyCopy.buffer }, [keyCopy.buffer]);
      yield plan.header;
      const inFlight: Array<Promise<Buffer>> = [];
      let nextChunk = 0;
      const dispatch = (batch: Uint8Array, length: number, last: boolean) => {
        if (failure !== null) throw failure;
        const nonces = plan.noncesOf(nextChunk, length, last);
        nextChunk += nonces.length / 12;
        const out = new Promise<Buffer>((resolve, reject) => sealed.push({ resolve, reject }));
        out.catch(() => undefined); // awaited in turn below; a failure must not go unhandled meanwhile
        inFlight.push(out);
        lease.post({ op: 'seal', id, buffer: batch.buffer, length, chunkSize: plan.chunkSize, nonces, aad: plan.header }, [batch.buffer as ArrayBuffer]);
      };
      // A full batch is sent only once a byte after it arrives: until then it may be the last.
      let held: Uint8Array | null = null;
      let batch: Uint8Array | null = null;
      let used = 0;
      for await (const chunk of source) {
        size += chunk.length;
        let offset = 0;
        while (offset < chunk.length) {
          if (held !== null) {
            dispatch(held, batchBytes, false);
            held = null;
          }
          while (inFlight.length >= maxInFlight) yield await (inFlight.shift() as Promise<Buffer>);
          batch ??= new Uint8Array(free.pop() ?? new ArrayBuffer(batchBytes));
          const n = Math.min(chunk.length - offset, batchBytes - used);
          batch.set(chunk.subarray(offset, offset + n), used);
          used += n;
          offset += n;
          if (used === batchBytes) {
            held = batch;
            batch = null;
            used = 0;
          }
        }
      }
      if (held !== null) dispatch(held, batchBytes, used === 0);
      // The rest, or for an empty input the one empty final chunk.
      if (used > 0 || held === null) dispatch(batch ?? new Uint8Array(new ArrayBuffer(0)), used, true);
      const hex = new Promise<string>((resolve, reject) => (digest = { resolve, reject }));
      hex.catch(() => undefined);
      lease.post({ op: 'end', id });
      for (const out of inFlight) yield await out;
      sha256 = await hex;
    } finally {
      lease.release(sha256 === null);
    }
  }

  return {
    stream: Duplex.from(seal),
    result() {
      if (sha256 === null) throw new Error('the sealer has not finished');
      return { size, sha256 };
    },
  };
}
