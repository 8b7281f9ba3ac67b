// Blob storage: the bytes of files, by key. Instants are epoch milliseconds.
import type { Instant } from '../../domain/time.js';

export interface BlobInfo {
  size: number;
  modifiedAt: Instant;
}

/** Bytes by key. Keys are made by the server only (lower-case letters, digits, '-', '_' and '/'
 * between segments); no name a client sends ever becomes part of one. */
export interface BlobStore {
  /** Streams `body` to a new object. The object appears whole or not at all; past `maxBytes` the
   * write fails with PAYLOAD_TOO_LARGE and nothing is left behind. An existing object is replaced. */
  write(key: string, body: NodeJS.ReadableStream | AsyncIterable<Uint8Array>, options?: { maxBytes?: number }): Promise<BlobInfo>;
  /** The object's bytes, or the inclusive range [start, end] of them; null when missing. `chunkBytes`:
   * piece size where the store picks it (a local file), large for bulk readers (fewer reads), while
   * a served download keeps the small default, so each one buffers little. */
  read(key: string, range?: { start: number; end: number }, options?: { chunkBytes?: number }): Promise<NodeJS.ReadableStream | null>;
  stat(key: string): Promise<BlobInfo | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Every object under a prefix ('' for all). */
  list(prefix: string): AsyncIterable<{ key: string } & BlobInfo>;
  /** Throws when the storage cannot be reached. */
  ping(): Promise<void>;
}
