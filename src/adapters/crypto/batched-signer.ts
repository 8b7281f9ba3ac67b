// Ed25519 signatures made in batches on worker threads: the signatures asked for in one event-loop
// turn go to a worker as one message, so the event loop pays a wake-up and a callback once a turn, not
// once an answer (docs/architecture.md, "Worker threads"; docs/performance-log.md, "Response signing").
import { type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startSupervisedWorker } from './supervised-worker.js';

// Evaluated source, as in crypto-workers.ts: the same code runs from src/ under vitest and from dist/.
//   {batch, reset, keys: [[id, KeyObject]...], items: [keyId, message, keyId, message...]}
//     -> {batch, signatures: [base64 or null...], error}   (null: that item's signing threw)
const WORKER_SOURCE = `
'use strict';
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
const keys = new Map();
parentPort.on('message', (m) => {
  if (m.reset) keys.clear();
  for (const [id, key] of m.keys) keys.set(id, key);
  const signatures = [];
  let error = null;
  for (let i = 0; i < m.items.length; i += 2) {
    try {
      signatures.push(sign(null, Buffer.from(m.items[i + 1], 'utf8'), keys.get(m.items[i])).toString('base64'));
    } catch (e) {
      signatures.push(null);
      error ??= String(e && e.message);
    }
  }
  parentPort.postMessage({ batch: m.batch, signatures, error });
});
`;

/** Keys a worker holds at most before it is told to forget them (a few keys sign most answers). */
const WORKER_KEYS_MAX = 1024;

export interface BatchedSigner {
  /** The base64 Ed25519 signature of `message` (UTF-8) under `key`. */
  sign(key: KeyObject, message: string): Promise<string>;
}

interface Pending {
  resolve(signature: string): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  /** The key ids this worker was sent, by key. */
  keyIds: Map<KeyObject, number>;
  /** Batches sent and not yet answered, by batch number. */
  inFlight: Map<number, Pending[]>;
}

export function createBatchedSigner(maxWorkers: number = Math.max(1, availableParallelism() - 1)): BatchedSigner {
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1) throw new RangeError('maxWorkers must be a positive integer');
  const slots = new Set<Slot>();
  let keys: KeyObject[] = [];
  let messages: string[] = [];
  let waiting: Pending[] = [];
  let scheduled = false;
  let nextBatch = 0;
  let nextKeyId = 0;

  function startWorker(): Slot {
    const slot: Slot = {
      worker: startSupervisedWorker<{ batch: number; signatures: (string | null)[]; error: string | null }>(WORKER_SOURCE, 'signing', {
        message(m) {
          const pending = slot.inFlight.get(m.batch);
          if (pending === undefined) return;
          slot.inFlight.delete(m.batch);
          if (slot.inFlight.size === 0) slot.worker.unref();
          pending.forEach((p, i) => {
            const signature = m.signatures[i];
            if (typeof signature === 'string') p.resolve(signature);
            else p.reject(new Error(`the signing worker could not sign: ${m.error ?? 'no signature'}`));
          });
        },
        stopped(error) {
          slots.delete(slot);
          for (const pending of slot.inFlight.values()) for (const p of pending) p.reject(error);
          slot.inFlight.clear();
        },
      }),
      keyIds: new Map(),
      inFlight: new Map(),
    };
    slots.add(slot);
    return slot;
  }

  /** An idle worker, else a new one while under the cap, else the one with the fewest batches. */
  function pickSlot(): Slot {
    let best: Slot | null = null;
    for (const slot of slots) if (best === null || slot.inFlight.size < best.inFlight.size) best = slot;
    if (best !== null && (best.inFlight.size === 0 || slots.size >= maxWorkers)) return best;
    return startWorker();
  }

  function flush(): void {
    scheduled = false;
    const batchKeys = keys;
    const batchMessages = messages;
    const pending = waiting;
    keys = [];
    messages = [];
    waiting = [];
    let slot: Slot;
    try {
      slot = pickSlot();
    } catch (error) {
      for (const p of pending) p.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const reset = slot.keyIds.size + batchKeys.length > WORKER_KEYS_MAX;
    if (reset) slot.keyIds.clear();
    const sent: [number, KeyObject][] = [];
    const items: (number | string)[] = [];
    batchKeys.forEach((key, i) => {
      let id = slot.keyIds.get(key);
      if (id === undefined) {
        slot.keyIds.set(key, (id = nextKeyId++));
        sent.push([id, key]);
      }
      items.push(id, batchMessages[i] as string);
    });
    const batch = nextBatch++;
    try {
      slot.worker.postMessage({ batch, reset, keys: sent, items });
    } catch (error) {
      // Not sent (a key that cannot cross threads): the worker may hold only some of the keys.
      slot.keyIds.clear();
      slot.worker.postMessage({ batch: -1, reset: true, keys: [], items: [] });
      for (const p of pending) p.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (slot.inFlight.size === 0) slot.worker.ref(); // signing: like pending I/O, it keeps the process up
    slot.inFlight.set(batch, pending);
  }

  return {
    sign(key, message) {
      return new Promise<string>((resolve, reject) => {
        keys.push(key);
        messages.push(message);
        waiting.push({ resolve, reject });
        if (!scheduled) {
          scheduled = true;
          // After the poll phase: every answer that reached signing in this turn joins the batch.
          setImmediate(flush);
        }
      });
    },
  };
}
