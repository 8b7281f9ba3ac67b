import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable, Writable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CHUNK_SIZE,
  EncryptedFileError,
  FILE_FORMAT_VERSION,
  FILE_MAGIC,
  HEADER_LENGTH,
  MAX_CHUNK_SIZE,
  TAG_LENGTH,
  createDecryptStream,
  createEncryptStream,
  decryptBuffer,
  encryptBuffer,
  encryptedSize,
  type EncryptedFileErrorCode,
} from '../../src/file-format/encrypted-file.js';

const KEY = randomBytes(32);
const OTHER_KEY = randomBytes(32);
const PREFIX = Buffer.from('0011223344556677', 'hex');

// ---------------------------------------------------------------------------------------------
// Helpers

/** Cuts `data` at the given offsets (taken modulo its length), never producing empty pieces. */
function split(data: Uint8Array, cuts: number[]): Buffer[] {
  const buffer = Buffer.from(data);
  if (buffer.length === 0) return [];
  const points = [...new Set(cuts.map((cut) => cut % buffer.length).filter((cut) => cut > 0))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of [...points, buffer.length]) {
    pieces.push(buffer.subarray(start, point));
    start = point;
  }
  return pieces;
}

async function through(transform: Transform, pieces: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(pieces, { objectMode: false }),
    transform,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out.push(chunk);
        callback();
      },
    }),
  );
  return Buffer.concat(out);
}

function decryptError(stored: Uint8Array, key: Uint8Array = KEY): EncryptedFileError {
  try {
    decryptBuffer(key, stored);
  } catch (error) {
    expect(error).toBeInstanceOf(EncryptedFileError);
    return error as EncryptedFileError;
  }
  throw new Error('decryption unexpectedly succeeded');
}

function expectDecryptError(stored: Uint8Array, codes: EncryptedFileErrorCode[], key: Uint8Array = KEY): void {
  expect(codes).toContain(decryptError(stored, key).code);
}

/** Byte equality; vitest's deep toEqual walks buffers element by element and is slow on MiBs. */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (a.length <= 4096 && b.length <= 4096) {
    expect(a.toString('hex')).toBe(b.toString('hex'));
  } else {
    expect(a.length).toBe(b.length);
    expect(a.equals(b)).toBe(true);
  }
}

function flip(buffer: Buffer, position: number, mask: number): void {
  buffer.writeUInt8(buffer.readUInt8(position) ^ mask, position);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Deterministic plaintext of a given size. */
function plaintextOf(size: number, seed = 1): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

// A straightforward reimplementation from docs/encrypted-file-format.md with raw node:crypto,
// independent of the module under test.

function referenceNonce(prefix: Buffer, index: number, last: boolean): Buffer {
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(index * 2 + (last ? 1 : 0));
  return Buffer.concat([prefix, counter]);
}

function referenceHeader(chunkSize: number, prefix: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt32BE(chunkSize);
  return Buffer.concat([Buffer.from('GHFE', 'ascii'), Buffer.from([1]), size, prefix]);
}

function referenceSeal(key: Buffer, header: Buffer, index: number, last: boolean, plaintext: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, referenceNonce(header.subarray(9, 17), index, last));
  cipher.setAAD(header);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

function referenceEncrypt(key: Buffer, prefix: Buffer, chunkSize: number, plaintext: Buffer): Buffer {
  const header = referenceHeader(chunkSize, prefix);
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < plaintext.length; offset += chunkSize) {
    chunks.push(plaintext.subarray(offset, offset + chunkSize));
  }
  if (chunks.length === 0) chunks.push(Buffer.alloc(0));
  return Buffer.concat([header, ...chunks.map((chunk, index) => referenceSeal(key, header, index, index === chunks.length - 1, chunk))]);
}

function referenceDecrypt(key: Buffer, stored: Buffer): Buffer {
  const header = stored.subarray(0, 17);
  if (header.subarray(0, 4).toString('ascii') !== 'GHFE' || header[4] !== 1) throw new Error('bad header');
  const chunkSize = header.readUInt32BE(5);
  const prefix = header.subarray(9, 17);
  const plain: Buffer[] = [];
  let offset = 17;
  let index = 0;
  do {
    const end = Math.min(offset + chunkSize + 16, stored.length);
    const last = end === stored.length;
    const decipher = createDecipheriv('aes-256-gcm', key, referenceNonce(prefix, index, last));
    decipher.setAAD(header);
    decipher.setAuthTag(stored.subarray(end - 16, end));
    plain.push(decipher.update(stored.subarray(offset, end - 16)), decipher.final());
    offset = end;
    index += 1;
  } while (offset < stored.length);
  return Buffer.concat(plain);
}

/** Offsets in a stored file where chunk k (k >= 1) starts, i.e. the chunk boundaries. */
function chunkBoundaries(plainSize: number, chunkSize: number): number[] {
  const chunks = plainSize === 0 ? 1 : Math.ceil(plainSize / chunkSize);
  return Array.from({ length: chunks - 1 }, (_, k) => HEADER_LENGTH + (k + 1) * (chunkSize + TAG_LENGTH));
}

const chunkSizeArb = fc.constantFrom(1, 16, 17, 1000);

/** Interesting sizes for a chunk size: 0, 1, c-1, c, c+1, 2c, 2c+1, 3c, and random ones. */
const sizeFor = (c: number) => fc.oneof(fc.constantFrom(0, 1, Math.max(0, c - 1), c, c + 1, 2 * c, 2 * c + 1, 3 * c), fc.nat({ max: 5000 }));

const caseArb = chunkSizeArb.chain((chunkSize) =>
  sizeFor(chunkSize).chain((size) =>
    fc.record({
      chunkSize: fc.constant(chunkSize),
      plaintext: fc.uint8Array({ minLength: size, maxLength: size }),
    }),
  ),
);

// ---------------------------------------------------------------------------------------------

describe('format constants and sizes', () => {
  it('exports the documented constants', () => {
    expect(FILE_MAGIC.toString('ascii')).toBe('GHFE');
    expect(FILE_MAGIC.length).toBe(4);
    expect(FILE_FORMAT_VERSION).toBe(1);
    expect(DEFAULT_CHUNK_SIZE).toBe(65536);
    expect(HEADER_LENGTH).toBe(17);
    expect(TAG_LENGTH).toBe(16);
    expect(MAX_CHUNK_SIZE).toBe(16 * 1024 * 1024);
  });

  it('computes the stored size: header, plaintext and one tag a chunk (an empty file has one chunk)', () => {
    expect(encryptedSize(0)).toBe(17 + 16);
    expect(encryptedSize(1)).toBe(17 + 1 + 16);
    expect(encryptedSize(65536)).toBe(17 + 65536 + 16);
    expect(encryptedSize(65537)).toBe(17 + 65537 + 32);
    expect(encryptedSize(48, 16)).toBe(17 + 48 + 3 * 16);
    expect(encryptedSize(49, 16)).toBe(17 + 49 + 4 * 16);
    expect(encryptedSize(2 * 1024 ** 4)).toBe(17 + 2 * 1024 ** 4 + 2 ** 25 * 16);
  });

  it('rejects impossible sizes and chunk sizes', () => {
    expect(() => encryptedSize(-1)).toThrow(RangeError);
    expect(() => encryptedSize(1.5)).toThrow(RangeError);
    expect(() => encryptedSize(10, 0)).toThrow(RangeError);
    expect(() => encryptedSize(10, MAX_CHUNK_SIZE + 1)).toThrow(RangeError);
    expect(() => encryptedSize(2 ** 31 + 1, 1)).toThrow(RangeError);
    expect(encryptedSize(2 ** 31, 1)).toBe(17 + 2 ** 31 * 17);
  });

  it('encryptedSize matches the actual output length', () => {
    fc.assert(
      fc.property(caseArb, ({ chunkSize, plaintext }) => {
        expect(encryptBuffer(KEY, plaintext, { chunkSize }).length).toBe(encryptedSize(plaintext.length, chunkSize));
      }),
    );
  });
});

describe('round trips', () => {
  it('decrypt(encrypt(x)) = x for edge and random sizes and small chunk sizes', () => {
    fc.assert(
      fc.property(caseArb, ({ chunkSize, plaintext }) => {
        const stored = encryptBuffer(KEY, plaintext, { chunkSize });
        expect(stored.subarray(0, 4).toString('ascii')).toBe('GHFE');
        expect(stored.readUInt32BE(5)).toBe(chunkSize);
        expectSameBytes(decryptBuffer(KEY, stored), Buffer.from(plaintext));
        expectSameBytes(referenceDecrypt(KEY, stored), Buffer.from(plaintext));
      }),
      { numRuns: 300 },
    );
  });

  it('edge sizes around the default chunk size', () => {
    for (const size of [0, 1, 65535, 65536, 65537, 2 * 65536, 2 * 65536 + 1]) {
      const plaintext = plaintextOf(size, size);
      const stored = encryptBuffer(KEY, plaintext);
      expect(stored.length).toBe(encryptedSize(size));
      expectSameBytes(decryptBuffer(KEY, stored), plaintext);
    }
  });

  it('streams fed with randomly sized pieces give the same bytes as the buffer functions', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.array(fc.nat(), { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 20 }), async ({ chunkSize, plaintext }, encryptCuts, decryptCuts) => {
        const stored = await through(createEncryptStream(KEY, { chunkSize, noncePrefix: PREFIX }), split(plaintext, encryptCuts));
        expectSameBytes(stored, encryptBuffer(KEY, plaintext, { chunkSize, noncePrefix: PREFIX }));
        expect(stored.length).toBe(encryptedSize(plaintext.length, chunkSize));
        const decrypted = await through(createDecryptStream(KEY), split(stored, decryptCuts));
        expectSameBytes(decrypted, Buffer.from(plaintext));
      }),
      { numRuns: 200 },
    );
  });

  it('byte-at-a-time input through both streams', async () => {
    const plaintext = plaintextOf(70, 7);
    const pieces = (data: Buffer) => Array.from(data, (byte) => Buffer.from([byte]));
    const stored = await through(createEncryptStream(KEY, { chunkSize: 16 }), pieces(plaintext));
    expectSameBytes(await through(createDecryptStream(KEY), pieces(stored)), plaintext);
  });

  it('5 MiB + 3 bytes through the streams with the default chunk size', async () => {
    const plaintext = randomBytes(5 * 1024 * 1024 + 3);
    const sizes = [7919, 100_003, 1, 65536, 65535, 300_000];
    const pieces: Buffer[] = [];
    for (let offset = 0, i = 0; offset < plaintext.length; i++) {
      const size = sizes[i % sizes.length] as number;
      pieces.push(plaintext.subarray(offset, offset + size));
      offset += size;
    }
    const stored = await through(createEncryptStream(KEY, { noncePrefix: PREFIX }), pieces);
    expect(stored.length).toBe(encryptedSize(plaintext.length));
    expect(stored.length).toBe(17 + plaintext.length + 81 * 16);
    expectSameBytes(stored, encryptBuffer(KEY, plaintext, { noncePrefix: PREFIX }));
    const decrypted = await through(createDecryptStream(KEY), split(stored, [123_457, 1_000_000, 3_333_333]));
    expect(decrypted.equals(plaintext)).toBe(true);
  });

  it('the largest allowed chunk size works', () => {
    const plaintext = plaintextOf(1000);
    const stored = encryptBuffer(KEY, plaintext, { chunkSize: MAX_CHUNK_SIZE });
    expectSameBytes(decryptBuffer(KEY, stored), plaintext);
  });

  it('accepts Uint8Array input and keys', () => {
    const key = new Uint8Array(KEY);
    const plaintext = new Uint8Array([1, 2, 3]);
    expectSameBytes(decryptBuffer(key, encryptBuffer(key, plaintext)), Buffer.from([1, 2, 3]));
  });

  it('uses a fresh random nonce prefix for every file', () => {
    const a = encryptBuffer(KEY, Buffer.from('same'));
    const b = encryptBuffer(KEY, Buffer.from('same'));
    expect(a.subarray(9, 17)).not.toEqual(b.subarray(9, 17));
    expect(a.subarray(17)).not.toEqual(b.subarray(17));
  });
});

describe('streaming behaviour', () => {
  it('the encryptor emits a chunk as soon as a byte after it arrives, and holds back the last one', async () => {
    const encrypt = createEncryptStream(KEY, { chunkSize: 16, noncePrefix: PREFIX });
    const got: Buffer[] = [];
    encrypt.on('data', (chunk: Buffer) => got.push(chunk));
    encrypt.write(plaintextOf(16));
    await nextTurn();
    expect(Buffer.concat(got).length).toBe(HEADER_LENGTH); // chunk 0 may still be the last one
    encrypt.write(plaintextOf(1));
    await nextTurn();
    expect(Buffer.concat(got).length).toBe(HEADER_LENGTH + 16 + TAG_LENGTH);
    encrypt.end();
    await new Promise((resolve) => encrypt.on('end', resolve));
    expect(Buffer.concat(got).length).toBe(encryptedSize(17, 16));
  });

  it('the decryptor emits authenticated chunks while the file is still arriving, with bounded lag', async () => {
    const chunkSize = 1000;
    const plaintext = plaintextOf(200_000, 3);
    const stored = encryptBuffer(KEY, plaintext, { chunkSize });
    const decrypt = createDecryptStream(KEY);
    let emitted = 0;
    decrypt.on('data', (chunk: Buffer) => (emitted += chunk.length));
    const piece = 333;
    let maxLag = 0;
    for (let offset = 0; offset < stored.length; offset += piece) {
      decrypt.write(stored.subarray(offset, offset + piece));
      await nextTurn();
      const consumed = Math.min(offset + piece, stored.length);
      const emittedChunks = emitted / chunkSize;
      expect(Number.isInteger(emittedChunks)).toBe(true); // whole chunks only
      maxLag = Math.max(maxLag, consumed - (HEADER_LENGTH + emitted + emittedChunks * TAG_LENGTH));
    }
    // Never more than one stored chunk plus the piece being processed is held back.
    expect(maxLag).toBeLessThanOrEqual(chunkSize + TAG_LENGTH + piece);
    decrypt.end();
    await new Promise((resolve) => decrypt.on('end', resolve));
    expect(emitted).toBe(plaintext.length);
  });

  it('never emits plaintext of a chunk that fails authentication', async () => {
    const plaintext = plaintextOf(40, 9);
    const stored = encryptBuffer(KEY, plaintext, { chunkSize: 16 });
    flip(stored, HEADER_LENGTH + 32 + 5, 0x01); // inside chunk 1's ciphertext
    const got: Buffer[] = [];
    const decrypt = createDecryptStream(KEY);
    decrypt.on('data', (chunk: Buffer) => got.push(chunk));
    const failure = new Promise<Error>((resolve) => decrypt.on('error', resolve));
    decrypt.end(stored);
    const error = await failure;
    expect(error).toBeInstanceOf(EncryptedFileError);
    expect((error as EncryptedFileError).code).toBe('AUTHENTICATION_FAILED');
    expectSameBytes(Buffer.concat(got), plaintext.subarray(0, 16));
  });

  it('a pipeline through the decrypt stream rejects on a corrupted file', async () => {
    const stored = encryptBuffer(KEY, randomBytes(300_000));
    flip(stored, stored.length - 100, 0x40);
    await expect(through(createDecryptStream(KEY), split(stored, [50_000, 100_000]))).rejects.toMatchObject({
      name: 'EncryptedFileError',
      code: 'AUTHENTICATION_FAILED',
      message: expect.stringContaining('tampered with or the key is wrong'),
    });
  });

  it('rejects a non-Gatehouse file as soon as its first bytes arrive', async () => {
    const decrypt = createDecryptStream(KEY);
    const failure = new Promise<Error>((resolve) => decrypt.on('error', resolve));
    decrypt.write(Buffer.from('PK\x03\x04', 'latin1'));
    expect(await failure).toMatchObject({ code: 'NOT_ENCRYPTED_FILE' });
  });
});

describe('tampering, truncation and extension', () => {
  const chunkSize = 16;
  const plaintext = plaintextOf(53, 5); // chunks of 16, 16, 16, 5
  const stored = encryptBuffer(KEY, plaintext, { chunkSize });

  it('flipping any single bit of any byte (header, ciphertext, tag) is detected', () => {
    for (let position = 0; position < stored.length; position++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const tampered = Buffer.from(stored);
        flip(tampered, position, mask);
        decryptError(tampered);
      }
    }
  });

  it('property: any single-byte change anywhere is detected, by the buffer and the stream decryptor', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.array(fc.nat(), { maxLength: 5 }), async ({ chunkSize: size, plaintext: data }, where, mask, cuts) => {
        const tampered = encryptBuffer(KEY, data, { chunkSize: size });
        const position = where % tampered.length;
        flip(tampered, position, mask);
        decryptError(tampered);
        await expect(through(createDecryptStream(KEY), split(tampered, cuts))).rejects.toBeInstanceOf(EncryptedFileError);
      }),
      { numRuns: 200 },
    );
  });

  it('truncation at every length is detected', () => {
    for (let length = 0; length < stored.length; length++) {
      expectDecryptError(stored.subarray(0, length), ['TRUNCATED', 'AUTHENTICATION_FAILED']);
    }
  });

  it('truncation exactly at a chunk boundary (a missing final chunk) is reported as truncation', () => {
    const boundaries = chunkBoundaries(plaintext.length, chunkSize);
    expect(boundaries).toEqual([17 + 32, 17 + 64, 17 + 96]);
    for (const boundary of [HEADER_LENGTH, ...boundaries]) {
      const error = decryptError(stored.subarray(0, boundary));
      expect(error.code).toBe('TRUNCATED');
      expect(error.message).toContain('encrypted file is truncated');
    }
  });

  it('a file whose size is a multiple of the chunk size: dropping trailing full chunks is detected', () => {
    const full = encryptBuffer(KEY, plaintextOf(48), { chunkSize });
    expect(decryptError(full.subarray(0, 17 + 32)).code).toBe('TRUNCATED');
    expect(decryptError(full.subarray(0, 17 + 64)).code).toBe('TRUNCATED');
  });

  it('truncation at every boundary of a default-chunk file is detected', () => {
    const size = 3 * DEFAULT_CHUNK_SIZE + 10;
    const big = encryptBuffer(KEY, plaintextOf(size));
    for (const boundary of chunkBoundaries(size, DEFAULT_CHUNK_SIZE)) {
      expect(decryptError(big.subarray(0, boundary)).code).toBe('TRUNCATED');
      expectDecryptError(big.subarray(0, boundary + 20), ['AUTHENTICATION_FAILED']);
      expectDecryptError(big.subarray(0, boundary - 1), ['AUTHENTICATION_FAILED']);
    }
  });

  it('property: any truncation is detected, also through the stream', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.nat(), async ({ chunkSize: size, plaintext: data }, cut) => {
        const full = encryptBuffer(KEY, data, { chunkSize: size });
        const truncated = full.subarray(0, cut % full.length);
        expectDecryptError(truncated, ['TRUNCATED', 'AUTHENTICATION_FAILED']);
        await expect(through(createDecryptStream(KEY), [truncated])).rejects.toBeInstanceOf(EncryptedFileError);
      }),
      { numRuns: 200 },
    );
  });

  it('bytes appended after the final chunk are detected', () => {
    for (const extra of [Buffer.from([0]), randomBytes(15), randomBytes(16), randomBytes(17), stored.subarray(17)]) {
      expectDecryptError(Buffer.concat([stored, extra]), ['AUTHENTICATION_FAILED', 'TRAILING_DATA']);
    }
    // After a full final chunk the decryptor can tell exactly what happened.
    const full = encryptBuffer(KEY, plaintextOf(48), { chunkSize });
    const error = decryptError(Buffer.concat([full, Buffer.from([0])]));
    expect(error.code).toBe('TRAILING_DATA');
    expect(error.message).toContain('after its final chunk');
    expect(decryptError(Buffer.concat([full, full.subarray(17 + 64)])).code).toBe('TRAILING_DATA');
    // An empty file followed by anything.
    expectDecryptError(Buffer.concat([encryptBuffer(KEY, Buffer.alloc(0)), randomBytes(20)]), ['AUTHENTICATION_FAILED']);
  });

  it('property: any appended bytes are detected', () => {
    fc.assert(
      fc.property(caseArb, fc.uint8Array({ minLength: 1, maxLength: 100 }), ({ chunkSize: size, plaintext: data }, extra) => {
        const full = encryptBuffer(KEY, data, { chunkSize: size });
        expectDecryptError(Buffer.concat([full, extra]), ['AUTHENTICATION_FAILED', 'TRAILING_DATA']);
      }),
      { numRuns: 200 },
    );
  });

  it('reordered, duplicated, dropped or foreign chunks are detected', () => {
    const header = stored.subarray(0, 17);
    const chunk = (k: number) => stored.subarray(17 + k * 32, Math.min(17 + (k + 1) * 32, stored.length));
    expectSameBytes(Buffer.concat([header, chunk(0), chunk(1), chunk(2), chunk(3)]), stored);
    const fail = (parts: Buffer[]) => expectDecryptError(Buffer.concat([header, ...parts]), ['AUTHENTICATION_FAILED']);
    fail([chunk(1), chunk(0), chunk(2), chunk(3)]);
    fail([chunk(0), chunk(2), chunk(1), chunk(3)]);
    fail([chunk(0), chunk(0), chunk(1), chunk(2), chunk(3)]);
    fail([chunk(0), chunk(2), chunk(3)]);
    fail([chunk(3)]);
    // Same key, same plaintext, another file: its chunks belong to another nonce prefix and header.
    const other = encryptBuffer(KEY, plaintext, { chunkSize });
    fail([other.subarray(17, 49), chunk(1), chunk(2), chunk(3)]);
    expectDecryptError(Buffer.concat([other.subarray(0, 17), stored.subarray(17)]), ['AUTHENTICATION_FAILED']);
  });

  it('a wrong key is detected and not mistaken for truncation', () => {
    expect(decryptError(stored, OTHER_KEY).code).toBe('AUTHENTICATION_FAILED');
    const oneFullChunk = encryptBuffer(KEY, plaintextOf(16), { chunkSize });
    const error = decryptError(oneFullChunk, OTHER_KEY);
    expect(error.code).toBe('AUTHENTICATION_FAILED');
    expect(error.message).toContain('tampered with or the key is wrong');
    expect(decryptError(encryptBuffer(KEY, Buffer.alloc(0)), OTHER_KEY).code).toBe('AUTHENTICATION_FAILED');
  });

  it('an empty final chunk after data (never written by the encryptor) is rejected', () => {
    const header = referenceHeader(16, PREFIX);
    const crafted = Buffer.concat([header, referenceSeal(KEY, header, 0, false, plaintextOf(16)), referenceSeal(KEY, header, 1, true, Buffer.alloc(0))]);
    expectSameBytes(referenceDecrypt(KEY, crafted), plaintextOf(16)); // authentic, yet not canonical
    expect(decryptError(crafted).code).toBe('MALFORMED');
  });
});

describe('header checks', () => {
  const header = (chunkSize: number, version = 1, magic = 'GHFE') => {
    const h = Buffer.alloc(17);
    h.write(magic, 0, 'latin1');
    h[4] = version;
    h.writeUInt32BE(chunkSize, 5);
    return Buffer.concat([h, randomBytes(16)]);
  };

  it('empty input and partial headers are truncated files', async () => {
    expect(decryptError(Buffer.alloc(0))).toMatchObject({
      code: 'TRUNCATED',
      message: expect.stringContaining('encrypted file is truncated'),
    });
    await expect(through(createDecryptStream(KEY), [])).rejects.toMatchObject({ code: 'TRUNCATED' });
    expect(decryptError(Buffer.from('GH')).code).toBe('TRUNCATED');
    expect(decryptError(header(16).subarray(0, 16)).code).toBe('TRUNCATED');
    expect(decryptError(header(16).subarray(0, 17))).toMatchObject({
      code: 'TRUNCATED',
      message: 'encrypted file is truncated: no chunk follows the header',
    });
  });

  it('bad magic', () => {
    expect(decryptError(Buffer.from('GX'))).toMatchObject({
      code: 'NOT_ENCRYPTED_FILE',
      message: expect.stringContaining('not a Gatehouse encrypted file'),
    });
    expect(decryptError(header(16, 1, 'GHFF')).code).toBe('NOT_ENCRYPTED_FILE');
    expect(decryptError(Buffer.from('%PDF-1.7 hello world, this is a pdf')).code).toBe('NOT_ENCRYPTED_FILE');
  });

  it('unsupported versions', () => {
    for (const version of [0, 2, 255]) {
      expect(decryptError(header(16, version))).toMatchObject({
        code: 'UNSUPPORTED_VERSION',
        message: expect.stringContaining('unsupported format version'),
      });
    }
    expect(decryptError(header(16, 2).subarray(0, 5)).code).toBe('UNSUPPORTED_VERSION');
  });

  it('chunk size 0 or above 16 MiB', () => {
    for (const size of [0, MAX_CHUNK_SIZE + 1, 0xffffffff]) {
      expect(decryptError(header(size)).code).toBe('INVALID_CHUNK_SIZE');
    }
  });
});

describe('argument checks', () => {
  it('rejects keys that are not 32 bytes', () => {
    for (const key of [Buffer.alloc(0), Buffer.alloc(16), Buffer.alloc(31), Buffer.alloc(33)]) {
      expect(() => createEncryptStream(key)).toThrow(/32 bytes/);
      expect(() => createDecryptStream(key)).toThrow(/32 bytes/);
      expect(() => encryptBuffer(key, Buffer.alloc(1))).toThrow(/32 bytes/);
      expect(() => decryptBuffer(key, Buffer.alloc(1))).toThrow(/32 bytes/);
    }
  });

  it('rejects nonce prefixes that are not 8 bytes and out-of-range chunk sizes', () => {
    expect(() => createEncryptStream(KEY, { noncePrefix: Buffer.alloc(7) })).toThrow(/8 bytes/);
    expect(() => createEncryptStream(KEY, { noncePrefix: Buffer.alloc(12) })).toThrow(/8 bytes/);
    for (const chunkSize of [0, -1, 1.5, MAX_CHUNK_SIZE + 1, Number.NaN]) {
      expect(() => createEncryptStream(KEY, { chunkSize })).toThrow(RangeError);
    }
  });
});

describe('test vectors (tests/crypto/vectors/file-encryption-v1.json)', () => {
  interface Vector {
    description: string;
    key: string;
    noncePrefix: string;
    chunkSize: number;
    plaintext: string;
    ciphertext: string;
  }
  const file = JSON.parse(readFileSync(new URL('./vectors/file-encryption-v1.json', import.meta.url), 'utf8')) as {
    vectors: Vector[];
  };
  const vectors = file.vectors.map((v) => ({
    ...v,
    keyBytes: Buffer.from(v.key, 'hex'),
    prefixBytes: Buffer.from(v.noncePrefix, 'hex'),
    plainBytes: Buffer.from(v.plaintext, 'hex'),
    storedBytes: Buffer.from(v.ciphertext, 'hex'),
  }));

  it('covers the documented cases', () => {
    const shapes = vectors.map((v) => [v.chunkSize, v.plainBytes.length]);
    expect(shapes).toEqual(
      expect.arrayContaining([
        [65536, 0],
        [65536, 1],
        [16, 16],
        [16, 17],
        [16, 40],
        [16, 48],
      ]),
    );
    for (const v of vectors) {
      expect(v.storedBytes.length).toBe(encryptedSize(v.plainBytes.length, v.chunkSize));
      expectSameBytes(v.storedBytes.subarray(0, 17), referenceHeader(v.chunkSize, v.prefixBytes));
    }
  });

  it('encrypting with the fixed nonce prefix reproduces each vector byte for byte (buffer and stream)', async () => {
    for (const v of vectors) {
      const options = { chunkSize: v.chunkSize, noncePrefix: v.prefixBytes };
      expect(encryptBuffer(v.keyBytes, v.plainBytes, options).toString('hex')).toBe(v.ciphertext);
      const streamed = await through(createEncryptStream(v.keyBytes, options), split(v.plainBytes, [3, 16, 20]));
      expect(streamed.toString('hex')).toBe(v.ciphertext);
    }
  });

  it('decrypting each vector recovers its plaintext (buffer and stream)', async () => {
    for (const v of vectors) {
      expect(decryptBuffer(v.keyBytes, v.storedBytes).toString('hex')).toBe(v.plaintext);
      const streamed = await through(createDecryptStream(v.keyBytes), split(v.storedBytes, [5, 17, 33, 40]));
      expect(streamed.toString('hex')).toBe(v.plaintext);
    }
  });

  it('an independent raw-AES-GCM implementation of the documented layout agrees with every vector', () => {
    for (const v of vectors) {
      expect(referenceDecrypt(v.keyBytes, v.storedBytes).toString('hex')).toBe(v.plaintext);
      expect(referenceEncrypt(v.keyBytes, v.prefixBytes, v.chunkSize, v.plainBytes).toString('hex')).toBe(v.ciphertext);
    }
  });

  it('the three-chunk vector, decoded by hand', () => {
    const v = vectors.find((x) => x.chunkSize === 16 && x.plainBytes.length === 40);
    if (!v) throw new Error('vector missing');
    const stored = v.storedBytes;
    expect(stored.subarray(0, 4).toString('ascii')).toBe('GHFE');
    expect(stored[4]).toBe(1);
    expect(stored.subarray(5, 9).toString('hex')).toBe('00000010');
    expectSameBytes(stored.subarray(9, 17), v.prefixBytes);
    const header = stored.subarray(0, 17);
    const open = (start: number, end: number, counter: number) => {
      const nonce = Buffer.concat([v.prefixBytes, Buffer.from([0, 0, 0, counter])]);
      const decipher = createDecipheriv('aes-256-gcm', v.keyBytes, nonce);
      decipher.setAAD(header);
      decipher.setAuthTag(stored.subarray(end - 16, end));
      return Buffer.concat([decipher.update(stored.subarray(start, end - 16)), decipher.final()]);
    };
    // chunk 0: counter 0 (not last), chunk 1: counter 2 (not last), chunk 2: counter 5 (2*2 + 1, last)
    const plain = Buffer.concat([open(17, 49, 0), open(49, 81, 2), open(81, 105, 5)]);
    expect(stored.length).toBe(105);
    expectSameBytes(plain, v.plainBytes);
    expect(() => open(81, 105, 4)).toThrow(); // the same chunk flagged non-final does not verify
  });
});
