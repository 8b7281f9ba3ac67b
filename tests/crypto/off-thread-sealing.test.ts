// The worker-thread sealer: byte for byte what createEncryptStream writes for the same nonce
// prefix, whatever the chunking, chunk size, batch size and in-flight bound; the plaintext's size
// and sha256 beside it; flat memory against a slow reader; worker failures as stream errors.
import { createHash, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cut, feed } from '../support/stream-pieces.js';
import { createCryptoPool } from '../../src/adapters/crypto/crypto-pool.js';
import { decryptBuffer, encryptBuffer, encryptedSize, EncryptedFileError, planEncryptedFile } from '../../src/file-format/encrypted-file.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const key = randomBytes(32);

// One chunk per batch, one batch out at a time: every batch boundary is a chunk boundary and
// the in-flight bound is hit all the time. The other pool batches several chunks.
const single = createCryptoPool({ maxWorkers: 2, batchChunks: 1, maxInFlightBatches: 1 });
const batched = createCryptoPool({ maxWorkers: 2, batchChunks: 3, maxInFlightBatches: 2 });
const standard = createCryptoPool();
afterAll(() => Promise.all([single.terminate(), batched.terminate(), standard.terminate()]));

describe('off-thread sealer', () => {
  it('writes the bytes of createEncryptStream, and measures the plaintext, over any split and chunk size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 400, size: 'max' }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        fc.uint8Array({ minLength: 8, maxLength: 8 }),
        async (bytes, cuts, chunkSize, useSingle, noncePrefix) => {
          const data = Buffer.from(bytes);
          const sealer = (useSingle ? single : batched).sealer(key, { chunkSize, noncePrefix });
          const stored = await feed(sealer.stream, cut(data, cuts));
          expect(stored.equals(encryptBuffer(key, data, { chunkSize, noncePrefix }))).toBe(true);
          expect(sealer.result()).toEqual({ size: data.length, sha256: sha(data) });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('seals files of whole batches, one byte more, and none, at the default sizes', async () => {
    const batch = 16 * 65536;
    for (const size of [0, 1, 65536, batch, batch + 1, 3 * batch, 5_000_003]) {
      const data = randomBytes(size);
      const noncePrefix = randomBytes(8);
      const sealer = standard.sealer(key, { noncePrefix });
      const stored = await feed(sealer.stream, cut(data, [size >> 1, 7]));
      expect(stored.length).toBe(encryptedSize(size));
      expect(stored.equals(encryptBuffer(key, data, { noncePrefix }))).toBe(true);
      expect(decryptBuffer(key, stored).equals(data)).toBe(true);
      expect(sealer.result()).toEqual({ size, sha256: sha(data) });
    }
  });

  it('uses a fresh nonce prefix per file: two sealings of the same bytes differ', async () => {
    const data = randomBytes(1000);
    const [a, b] = await Promise.all([feed(standard.sealer(key).stream, [data]), feed(standard.sealer(key).stream, [data])]);
    expect(a.equals(b)).toBe(false);
    expect(decryptBuffer(key, a).equals(data) && decryptBuffer(key, b).equals(data)).toBe(true);
  });

  it('keeps concurrent sealers apart, also with their keys on one shared worker', async () => {
    const shared = createCryptoPool({ maxWorkers: 1, batchChunks: 2, maxInFlightBatches: 2 });
    try {
      const keys = Array.from({ length: 5 }, () => randomBytes(32));
      const inputs = keys.map((_, i) => randomBytes(300_000 + i * 1_001));
      const sealers = keys.map((k) => shared.sealer(k));
      const stored = await Promise.all(sealers.map((sealer, i) => feed(sealer.stream, cut(inputs[i] as Buffer, [1, 70_000, 200_000]))));
      stored.forEach((bytes, i) => expect(decryptBuffer(keys[i] as Buffer, bytes).equals(inputs[i] as Buffer)).toBe(true));
      sealers.forEach((sealer, i) => expect(sealer.result()).toEqual({ size: (inputs[i] as Buffer).length, sha256: sha(inputs[i] as Buffer) }));
    } finally {
      await shared.terminate();
    }
  });

  it('takes no more input than its bound while the reader is slow', async () => {
    // A reader that takes one piece per round trip of the event loop, and a source that counts
    // what was taken from it: the gap stays within the batches in flight, the batch being
    // filled, the one held back, and a piece or two in each stream's buffer.
    const pool = createCryptoPool({ maxWorkers: 2, batchChunks: 4, maxInFlightBatches: 2 });
    try {
      const piece = 65536;
      const total = 64 * 1024 * 1024;
      let produced = 0;
      let consumed = 0;
      let widest = 0;
      const source = Readable.from(
        (async function* () {
          while (produced < total) {
            widest = Math.max(widest, produced - consumed);
            produced += piece;
            yield randomBytes(piece);
          }
        })(),
      );
      const sealer = pool.sealer(key);
      const slow = new Writable({
        highWaterMark: 1,
        write(chunk: Buffer, _encoding, callback) {
          consumed += chunk.length;
          setImmediate(callback);
        },
      });
      await pipeline(source, sealer.stream, slow);
      expect(sealer.result().size).toBe(total);
      expect(consumed).toBe(encryptedSize(total));
      const batch = 4 * 65536;
      expect(widest).toBeLessThanOrEqual((2 + 2 + 4) * batch);
    } finally {
      await pool.terminate();
    }
  });

  it("takes its nonces from a plan that refuses chunks past the format's last (TOO_LARGE)", () => {
    // 2^31 chunks are out of a test's reach even at 1 byte each; the sealer throws what the plan
    // throws, inside its stream.
    const plan = planEncryptedFile({ chunkSize: 1 });
    expect(() => plan.noncesOf(2 ** 31 - 1, 2, true)).toThrow(EncryptedFileError);
    expect(plan.noncesOf(2 ** 31 - 1, 1, true).length).toBe(12);
  });

  it('fails the stream, not the process, when its worker stops; later sealers get a new worker', async () => {
    const pool = createCryptoPool({ maxWorkers: 1, batchChunks: 1, maxInFlightBatches: 2 });
    try {
      const sealer = pool.sealer(key);
      let stopped = false;
      const endless = Readable.from(
        (async function* () {
          for (let i = 0; ; i++) {
            yield randomBytes(65536);
            if (i === 10) void pool.terminate().then(() => (stopped = true));
          }
        })(),
      );
      const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
      await expect(pipeline(endless, sealer.stream, sink)).rejects.toThrow(/crypto worker stopped/);
      expect(stopped).toBe(true);
      expect(() => sealer.result()).toThrow(/not finished/);

      const next = pool.sealer(key);
      const data = randomBytes(100_000);
      expect(decryptBuffer(key, await feed(next.stream, [data])).equals(data)).toBe(true);
    } finally {
      await pool.terminate();
    }
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => standard.sealer(randomBytes(16))).toThrow(RangeError);
  });
});
