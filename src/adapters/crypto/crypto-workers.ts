// The worker threads that hash and encrypt file contents beside the main thread's I/O, shared by all
// streams; each worker keeps per-id state and handles one id's messages in order, and one that fails
// fails only the streams using it (docs/architecture.md, "Worker threads").
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startSupervisedWorker } from './supervised-worker.js';

// Evaluated source rather than a module file, so it runs from src/ and dist/ alike. It knows AES-256-GCM
// and sha256, not the file format: the sealer sends each chunk's nonce and the AAD. Its messages are
// listed in docs/architecture.md, "Worker threads".
const WORKER_SOURCE = `
'use strict';
const { parentPort } = require('node:worker_threads');
const { createCipheriv, createHash, createSecretKey } = require('node:crypto');
const hashes = new Map();
const keys = new Map();
const hashOf = (id) => {
  let hash = hashes.get(id);
  if (hash === undefined) hashes.set(id, (hash = createHash('sha256')));
  return hash;
};
function seal(m) {
  const plain = new Uint8Array(m.buffer, 0, m.length);
  hashOf(m.id).update(plain);
  const nonces = m.nonces;
  const count = nonces.length / 12;
  const out = new Uint8Array(new ArrayBuffer(m.length + 16 * count));
  const key = keys.get(m.id);
  let read = 0;
  let written = 0;
  for (let i = 0; i < count; i++) {
    const end = Math.min(read + m.chunkSize, m.length);
    const cipher = createCipheriv('aes-256-gcm', key, nonces.subarray(12 * i, 12 * i + 12), { authTagLength: 16 });
    cipher.setAAD(m.aad);
    const body = cipher.update(plain.subarray(read, end));
    out.set(body, written);
    written += body.length;
    const tail = cipher.final();
    out.set(tail, written);
    written += tail.length;
    out.set(cipher.getAuthTag(), written);
    written += 16;
    read = end;
  }
  parentPort.postMessage({ op: 'sealed', id: m.id, buffer: m.buffer, out: out.buffer }, [m.buffer, out.buffer]);
}
parentPort.on('message', (m) => {
  if (m.op === 'data') {
    hashOf(m.id).update(new Uint8Array(m.buffer, 0, m.length));
    parentPort.postMessage({ op: 'ack', id: m.id, buffer: m.buffer }, [m.buffer]);
  } else if (m.op === 'end') {
    const sha256 = hashOf(m.id).digest('hex');
    hashes.delete(m.id);
    keys.delete(m.id);
    parentPort.postMessage({ op: 'digest', id: m.id, sha256 });
  } else if (m.op === 'key') {
    keys.set(m.id, createSecretKey(new Uint8Array(m.key)));
  } else if (m.op === 'seal') {
    seal(m);
  } else if (m.op === 'drop') {
    hashes.delete(m.id);
    keys.delete(m.id);
  }
});
`;

export type FromWorker = { op: 'ack'; id: number; buffer: ArrayBuffer } | { op: 'digest'; id: number; sha256: string } | { op: 'sealed'; id: number; buffer: ArrayBuffer; out: ArrayBuffer };

/** What a worker calls back on, per stream. */
export interface Listener {
  message(m: FromWorker): void;
  fail(error: Error): void;
}

/** One stream's hold on a worker: messages to it, and letting go. */
export interface WorkerLease {
  post(message: object, transfer?: ArrayBuffer[]): void;
  /** Lets go of the worker, telling it to forget the stream's state when `drop` is set. */
  release(drop: boolean): void;
}

export interface CryptoWorkers {
  /** A new stream id. */
  nextId(): number;
  /** An idle worker, else a new one while under the cap, else the least busy. */
  lease(id: number, listener: Listener): WorkerLease;
  /** Stops the workers now; streams using them fail. Later streams start new workers. */
  terminate(): Promise<void>;
}

interface Slot {
  worker: Worker;
  listeners: Map<number, Listener>;
}

/** Worker threads at most: by default one per CPU, at least 2 (a job hashes two streams). */
export function createCryptoWorkers(maxWorkers: number = Math.max(2, availableParallelism())): CryptoWorkers {
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1) throw new RangeError('maxWorkers must be a positive integer');
  const slots = new Set<Slot>();
  let nextId = 0;

  function startWorker(): Slot {
    const slot: Slot = {
      worker: startSupervisedWorker<FromWorker>(WORKER_SOURCE, 'crypto', {
        message: (m) => slot.listeners.get(m.id)?.message(m), // none: a stream destroyed meanwhile
        stopped(error) {
          slots.delete(slot);
          const failed = [...slot.listeners.values()];
          slot.listeners.clear();
          for (const listener of failed) listener.fail(error);
        },
      }),
      listeners: new Map(),
    };
    slots.add(slot);
    return slot;
  }

  function pickSlot(): Slot {
    let best: Slot | null = null;
    for (const slot of slots) {
      if (best === null || slot.listeners.size < best.listeners.size) best = slot;
    }
    if (best !== null && (best.listeners.size === 0 || slots.size >= maxWorkers)) return best;
    return startWorker();
  }

  return {
    nextId: () => nextId++,
    lease(id, listener) {
      const slot = pickSlot();
      if (slot.listeners.size === 0) slot.worker.ref(); // busy: like pending I/O, it keeps the process up
      slot.listeners.set(id, listener);
      return {
        post: (message, transfer = []) => slot.worker.postMessage(message, transfer),
        release(drop) {
          if (!slot.listeners.delete(id)) return; // released already, or the worker is gone
          if (drop) slot.worker.postMessage({ op: 'drop', id });
          if (slot.listeners.size === 0) slot.worker.unref();
        },
      };
    },
    async terminate() {
      await Promise.all([...slots].map((slot) => slot.worker.terminate()));
    },
  };
}
