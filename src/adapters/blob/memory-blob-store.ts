// BlobStore in memory, for tests, under the same contract as the local folder store (ranges, key
// checks, the key/folder clash, nothing stored past maxBytes; docs/architecture.md, "Blob stores").
// A write copies its bytes, so a source reusing its buffers cannot change them.
import { Readable } from 'node:stream';
import type { BlobInfo, BlobStore } from '../../application/ports/blob-store.js';
import { DomainError } from '../../domain/errors.js';
import { assertBlobKey, assertBlobPrefix, assertBlobRange, assertMaxBytes } from './blob-keys.js';

interface StoredObject {
  bytes: Buffer;
  modifiedAt: number;
}

export function createMemoryBlobStore(): BlobStore {
  const objects = new Map<string, StoredObject>();
  const infoOf = (o: StoredObject): BlobInfo => ({ size: o.bytes.byteLength, modifiedAt: o.modifiedAt });

  /** Whether `key` would need a folder where an object is, or an object where a folder is. */
  const clashes = (key: string): boolean => {
    for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) {
      if (objects.has(key.slice(0, i))) return true;
    }
    const below = `${key}/`;
    for (const other of objects.keys()) if (other.startsWith(below)) return true;
    return false;
  };

  async function* entries(prefix: string): AsyncGenerator<{ key: string } & BlobInfo> {
    const keys = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
    for (const key of keys) {
      const o = objects.get(key);
      if (o !== undefined) yield { key, ...infoOf(o) };
    }
  }

  return {
    async write(key, body, options = {}) {
      assertBlobKey(key);
      assertMaxBytes(options.maxBytes);
      const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
        const bytes = Buffer.from(chunk);
        size += bytes.byteLength;
        if (size > maxBytes) throw new DomainError('PAYLOAD_TOO_LARGE', `the upload exceeds ${maxBytes} bytes`);
        chunks.push(bytes);
      }
      if (clashes(key)) throw new Error(`blob key ${JSON.stringify(key)} clashes with an existing object or its folder`);
      const stored: StoredObject = { bytes: Buffer.concat(chunks, size), modifiedAt: Date.now() };
      objects.set(key, stored);
      return infoOf(stored);
    },

    async read(key, range) {
      assertBlobKey(key);
      if (range !== undefined) assertBlobRange(range);
      const o = objects.get(key);
      if (o === undefined) return null;
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? o.bytes.byteLength - 1, o.bytes.byteLength - 1);
      if (start > end) return Readable.from([]);
      return Readable.from([Buffer.from(o.bytes.subarray(start, end + 1))]);
    },

    async stat(key) {
      assertBlobKey(key);
      const o = objects.get(key);
      return o === undefined ? null : infoOf(o);
    },

    async delete(key) {
      assertBlobKey(key);
      objects.delete(key);
    },

    list(prefix) {
      assertBlobPrefix(prefix);
      return entries(prefix);
    },

    async ping() {},
  };
}
