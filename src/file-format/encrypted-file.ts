// The streaming format of encrypted files (version 1), byte for byte in docs/encrypted-file-format.md:
// AES-256-GCM chunks under the STREAM nonce rule, so dropping, reordering or appending chunks fails
// authentication. Only node:crypto and node:stream, so this file can be copied into a client as is.
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** The 4 ASCII bytes "GHFE" that open every encrypted file. */
export const FILE_MAGIC: Buffer = Buffer.from('GHFE', 'ascii');
export const FILE_FORMAT_VERSION = 1;
export const DEFAULT_CHUNK_SIZE = 65536;
/** Largest chunk size a file may declare (16 MiB); bounds the decryptor's memory. */
export const MAX_CHUNK_SIZE = 16 * 1024 * 1024;
export const NONCE_PREFIX_LENGTH = 8;
/** magic (4) + version (1) + chunk size (4) + nonce prefix (8). */
export const HEADER_LENGTH = 17;
export const TAG_LENGTH = 16;
export const KEY_LENGTH = 32;
/** Chunk indices run from 0 to MAX_CHUNKS - 1, so 2i + 1 always fits in a u32. */
export const MAX_CHUNKS = 2 ** 31;

export type EncryptedFileErrorCode = 'TRUNCATED' | 'AUTHENTICATION_FAILED' | 'TRAILING_DATA' | 'NOT_ENCRYPTED_FILE' | 'UNSUPPORTED_VERSION' | 'INVALID_CHUNK_SIZE' | 'MALFORMED' | 'TOO_LARGE';

/** Why an encrypted file could not be decrypted (or produced). */
export class EncryptedFileError extends Error {
  constructor(
    readonly code: EncryptedFileErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EncryptedFileError';
  }
}

export interface EncryptOptions {
  /** Plaintext bytes per chunk, 1..MAX_CHUNK_SIZE; DEFAULT_CHUNK_SIZE when omitted. */
  chunkSize?: number;
  /** 8 bytes. Random (and it must be) unless given; pass it only to reproduce test vectors. */
  noncePrefix?: Uint8Array;
}

/** The exact stored size of a plaintext of `plainSize` bytes. */
export function encryptedSize(plainSize: number, chunkSize: number = DEFAULT_CHUNK_SIZE): number {
  if (!Number.isSafeInteger(plainSize) || plainSize < 0) {
    throw new RangeError(`plain size must be a non-negative integer, got ${plainSize}`);
  }
  checkChunkSize(chunkSize);
  const chunks = plainSize === 0 ? 1 : Math.ceil(plainSize / chunkSize);
  if (chunks > MAX_CHUNKS) throw new RangeError(`a file of ${plainSize} bytes needs more than 2^31 chunks`);
  return HEADER_LENGTH + plainSize + chunks * TAG_LENGTH;
}

function checkChunkSize(chunkSize: number): void {
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
    throw new RangeError(`chunk size must be an integer from 1 to ${MAX_CHUNK_SIZE}, got ${chunkSize}`);
  }
}

function importKey(key: Uint8Array): KeyObject {
  if (!(key instanceof Uint8Array) || key.length !== KEY_LENGTH) {
    throw new RangeError(`the files encryption key must be ${KEY_LENGTH} bytes`);
  }
  // A KeyObject holds its own copy: later changes to the caller's buffer do not matter.
  return createSecretKey(key);
}

/** What sealing one file's chunks needs wherever the sealing runs (this module's stream or the server's
 * worker threads): the header, which is every chunk's AAD, and the nonce rule. */
export interface FilePlan {
  readonly header: Buffer;
  readonly chunkSize: number;
  /** The 12-byte nonces, back to back, of the chunks holding `bytes` plaintext bytes from chunk `first`
   * on, the last one final when `last` is set. `bytes` must be whole chunks unless `last`; 0 bytes make
   * one empty final chunk (the whole of an empty file). */
  noncesOf(first: number, bytes: number, last: boolean): Buffer;
}

/** The header and nonces of a new encrypted file (a random nonce prefix unless one is given). */
export function planEncryptedFile(options: EncryptOptions = {}): FilePlan {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  checkChunkSize(chunkSize);
  if (options.noncePrefix !== undefined && options.noncePrefix.length !== NONCE_PREFIX_LENGTH) {
    throw new RangeError(`the nonce prefix must be ${NONCE_PREFIX_LENGTH} bytes`);
  }
  const prefix = options.noncePrefix === undefined ? randomBytes(NONCE_PREFIX_LENGTH) : Buffer.from(options.noncePrefix);
  const header = Buffer.alloc(HEADER_LENGTH);
  FILE_MAGIC.copy(header, 0);
  header.writeUInt8(FILE_FORMAT_VERSION, 4);
  header.writeUInt32BE(chunkSize, 5);
  prefix.copy(header, 9);
  return {
    header,
    chunkSize,
    noncesOf(first, bytes, last) {
      if (!last && bytes % chunkSize !== 0) throw new RangeError('only the final chunk may be shorter than the chunk size');
      const count = bytes === 0 ? (last ? 1 : 0) : Math.ceil(bytes / chunkSize);
      if (first + count > MAX_CHUNKS) {
        throw new EncryptedFileError('TOO_LARGE', `file too large for the format: more than 2^31 chunks of ${chunkSize} bytes`);
      }
      const nonces = Buffer.allocUnsafe(12 * count);
      for (let i = 0; i < count; i++) chunkNonce(prefix, first + i, last && i === count - 1).copy(nonces, 12 * i);
      return nonces;
    },
  };
}

function chunkNonce(prefix: Buffer, index: number, last: boolean): Buffer {
  const nonce = Buffer.allocUnsafe(12);
  prefix.copy(nonce, 0, 0, NONCE_PREFIX_LENGTH);
  nonce.writeUInt32BE(index * 2 + (last ? 1 : 0), NONCE_PREFIX_LENGTH);
  return nonce;
}

type Emit = (bytes: Buffer) => void;

/** Encrypts a byte stream, holding back at most one chunk of plaintext by reference (like other Node
 * transforms, it expects written buffers to stay unchanged): a chunk is sealed as non-final only once a
 * byte after it has arrived, and the chunk left at the end is sealed as final. */
class Encryptor {
  private readonly key: KeyObject;
  private readonly plan: FilePlan;
  private held: Buffer[] = [];
  private heldLength = 0;
  private index = 0;
  private headerSent = false;

  constructor(key: Uint8Array, options: EncryptOptions = {}) {
    this.key = importKey(key);
    this.plan = planEncryptedFile(options);
  }

  write(data: Buffer, emit: Emit): void {
    if (!this.headerSent) {
      this.headerSent = true;
      emit(this.plan.header);
    }
    const { chunkSize } = this.plan;
    let rest = data;
    // More than a chunk in hand: the first chunk is known not to be the last one.
    while (this.heldLength + rest.length > chunkSize) {
      const take = chunkSize - this.heldLength;
      this.held.push(rest.subarray(0, take));
      this.heldLength += take;
      rest = rest.subarray(take);
      this.seal(false, emit);
    }
    if (rest.length > 0) {
      this.held.push(rest);
      this.heldLength += rest.length;
    }
  }

  end(emit: Emit): void {
    if (!this.headerSent) {
      this.headerSent = true;
      emit(this.plan.header);
    }
    // Non-empty unless the whole input was empty (then this is the one empty final chunk).
    this.seal(true, emit);
  }

  private seal(last: boolean, emit: Emit): void {
    const nonce = this.plan.noncesOf(this.index, this.heldLength, last);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce, { authTagLength: TAG_LENGTH });
    cipher.setAAD(this.plan.header);
    for (const part of this.held) {
      const out = cipher.update(part);
      if (out.length > 0) emit(out);
    }
    const tail = cipher.final();
    if (tail.length > 0) emit(tail);
    emit(cipher.getAuthTag());
    this.held = [];
    this.heldLength = 0;
    this.index += 1;
  }
}

/** A queue of byte buffers that hands out slices without copying (except where asked). */
class ByteQueue {
  private parts: Buffer[] = [];
  private head = 0;
  length = 0;

  push(data: Buffer): void {
    if (data.length === 0) return;
    this.parts.push(data);
    this.length += data.length;
  }

  /** Removes `n` bytes (n <= length), as slices of the queued buffers. */
  take(n: number): Buffer[] {
    const out: Buffer[] = [];
    let need = n;
    while (need > 0) {
      const first = this.parts[this.head] as Buffer;
      if (first.length <= need) {
        out.push(first);
        need -= first.length;
        this.head += 1;
      } else {
        out.push(first.subarray(0, need));
        this.parts[this.head] = first.subarray(need);
        need = 0;
      }
    }
    if (this.head > 64 && this.head * 2 > this.parts.length) {
      this.parts = this.parts.slice(this.head);
      this.head = 0;
    }
    this.length -= n;
    return out;
  }

  /** Removes `n` bytes as one contiguous buffer (copies only when they span several parts). */
  takeContiguous(n: number): Buffer {
    const parts = this.take(n);
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, n);
  }

  /** All queued bytes, without removing them. */
  peekAll(): Buffer {
    return Buffer.concat(this.parts.slice(this.head), this.length);
  }
}

/** Decrypts a byte stream, emitting a chunk's plaintext only after its tag has verified; a chunk opens
 * as non-final once a byte after it has arrived, what is left at the end as final. Holds at most one
 * stored chunk (chunk size + 16) plus the input piece being processed. */
class Decryptor {
  private readonly key: KeyObject;
  private readonly pending = new ByteQueue();
  private header: Buffer | null = null;
  private prefix: Buffer = Buffer.alloc(0);
  private chunkSize = 0;
  private storedChunkSize = 0;
  private index = 0;

  constructor(key: Uint8Array) {
    this.key = importKey(key);
  }

  write(data: Buffer, emit: Emit): void {
    this.pending.push(data);
    if (this.header === null) {
      if (this.pending.length < HEADER_LENGTH) {
        checkHeaderStart(this.pending.peekAll());
        return;
      }
      this.readHeader(this.pending.takeContiguous(HEADER_LENGTH));
    }
    while (this.pending.length > this.storedChunkSize) {
      this.open(this.pending.take(this.storedChunkSize), false, emit);
    }
  }

  end(emit: Emit): void {
    if (this.header === null) {
      checkHeaderStart(this.pending.peekAll());
      throw new EncryptedFileError('TRUNCATED', `encrypted file is truncated: ${this.pending.length} bytes, shorter than the ${HEADER_LENGTH}-byte header`);
    }
    if (this.pending.length < TAG_LENGTH) {
      throw new EncryptedFileError(
        'TRUNCATED',
        this.pending.length === 0 ? 'encrypted file is truncated: no chunk follows the header' : `encrypted file is truncated: chunk ${this.index} is shorter than its ${TAG_LENGTH}-byte tag`,
      );
    }
    const length = this.pending.length;
    this.open(this.pending.take(length), true, emit);
    if (length === TAG_LENGTH && this.index > 1) {
      // Authentic, but not canonical: the encryptor flags the last non-empty chunk as final.
      throw new EncryptedFileError('MALFORMED', 'encrypted file is malformed: empty final chunk after data');
    }
  }

  private readHeader(header: Buffer): void {
    const chunkSize = checkHeader(header);
    // Copies: the header must not change under us if the caller reuses its buffer.
    this.header = Buffer.from(header);
    this.prefix = this.header.subarray(9, 9 + NONCE_PREFIX_LENGTH);
    this.chunkSize = chunkSize;
    this.storedChunkSize = chunkSize + TAG_LENGTH;
  }

  private open(stored: Buffer[], last: boolean, emit: Emit): void {
    if (this.index >= MAX_CHUNKS) {
      throw new EncryptedFileError('MALFORMED', 'encrypted file is malformed: more than 2^31 chunks');
    }
    const length = stored.reduce((sum, part) => sum + part.length, 0);
    const plaintext = this.tryOpen(stored, length, last);
    if (plaintext === null) {
      // Which failure was it? Opening with the other final flag is a cheap, error-path-only check.
      const full = length === this.storedChunkSize;
      if (last && full && this.tryOpen(stored, length, false) !== null) {
        throw new EncryptedFileError('TRUNCATED', `encrypted file is truncated: chunks after chunk ${this.index} are missing`);
      }
      if (!last && this.tryOpen(stored, length, true) !== null) {
        throw new EncryptedFileError('TRAILING_DATA', `encrypted file has unexpected bytes after its final chunk (chunk ${this.index})`);
      }
      throw new EncryptedFileError('AUTHENTICATION_FAILED', `encrypted file was tampered with or the key is wrong (chunk ${this.index} failed authentication)`);
    }
    this.index += 1;
    for (const part of plaintext) emit(part);
  }

  /** The chunk's plaintext if its tag verifies with this final flag, else null. Emits nothing. */
  private tryOpen(stored: Buffer[], length: number, last: boolean): Buffer[] | null {
    const decipher = createDecipheriv('aes-256-gcm', this.key, chunkNonce(this.prefix, this.index, last), {
      authTagLength: TAG_LENGTH,
    });
    decipher.setAAD(this.header as Buffer);
    const out: Buffer[] = [];
    let remaining = length - TAG_LENGTH;
    const tagParts: Buffer[] = [];
    for (const part of stored) {
      if (remaining >= part.length) {
        remaining -= part.length;
        const plain = decipher.update(part);
        if (plain.length > 0) out.push(plain);
      } else {
        if (remaining > 0) {
          const plain = decipher.update(part.subarray(0, remaining));
          if (plain.length > 0) out.push(plain);
        }
        tagParts.push(part.subarray(remaining));
        remaining = 0;
      }
    }
    decipher.setAuthTag(tagParts.length === 1 ? (tagParts[0] as Buffer) : Buffer.concat(tagParts, TAG_LENGTH));
    try {
      const tail = decipher.final();
      if (tail.length > 0) out.push(tail);
    } catch {
      return null;
    }
    return out;
  }
}

/** Rejects, as early as the bytes allow, input that is not a version-1 Gatehouse file. */
function checkHeaderStart(bytes: Buffer): void {
  const magicBytes = Math.min(bytes.length, FILE_MAGIC.length);
  if (!bytes.subarray(0, magicBytes).equals(FILE_MAGIC.subarray(0, magicBytes))) {
    throw new EncryptedFileError('NOT_ENCRYPTED_FILE', 'not a Gatehouse encrypted file (bad magic bytes)');
  }
  if (bytes.length > 4 && bytes[4] !== FILE_FORMAT_VERSION) {
    throw new EncryptedFileError('UNSUPPORTED_VERSION', `unsupported format version ${bytes[4]} of encrypted file (this decryptor reads version ${FILE_FORMAT_VERSION})`);
  }
}

/** Checks a whole header; its chunk size. */
function checkHeader(header: Buffer): number {
  checkHeaderStart(header);
  const chunkSize = header.readUInt32BE(5);
  if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
    throw new EncryptedFileError('INVALID_CHUNK_SIZE', `encrypted file declares an invalid chunk size ${chunkSize} (allowed 1 to ${MAX_CHUNK_SIZE})`);
  }
  return chunkSize;
}

/** Passes stored bytes through once they begin with a valid header (see createFormatCheckStream). */
class FormatCheck {
  private head: Buffer | null = Buffer.alloc(0);

  write(data: Buffer, emit: Emit): void {
    if (this.head === null) return emit(data);
    const head = Buffer.concat([this.head, data]);
    if (head.length < HEADER_LENGTH) {
      checkHeaderStart(head);
      this.head = head;
      return;
    }
    checkHeader(head.subarray(0, HEADER_LENGTH));
    this.head = null;
    emit(head);
  }

  end(): void {
    if (this.head === null) return;
    checkHeaderStart(this.head);
    throw new EncryptedFileError('TRUNCATED', `encrypted file is truncated: ${this.head.length} bytes, shorter than the ${HEADER_LENGTH}-byte header`);
  }
}

interface Core {
  write(data: Buffer, emit: Emit): void;
  end(emit: Emit): void;
}

function toTransform(core: Core): Transform {
  let failed = false;
  return new Transform({
    transform(this: Transform, data: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      if (failed) return callback();
      try {
        core.write(data, (bytes) => this.push(bytes));
      } catch (error) {
        failed = true;
        return callback(error as Error);
      }
      callback();
    },
    flush(this: Transform, callback: TransformCallback) {
      if (failed) return callback();
      try {
        core.end((bytes) => this.push(bytes));
      } catch (error) {
        failed = true;
        return callback(error as Error);
      }
      callback();
    },
  });
}

/** A Transform from plaintext to the stored format (header, then chunks). */
export function createEncryptStream(key: Uint8Array, options?: EncryptOptions): Transform {
  return toTransform(new Encryptor(key, options));
}

/** A Transform from the stored format to plaintext, erroring with an EncryptedFileError on tampering,
 * truncation, extension, a wrong key or an unknown format. Each chunk's plaintext is authentic, but the
 * file is complete and authentic only once the stream ends without error. */
export function createDecryptStream(key: Uint8Array): Transform {
  return toTransform(new Decryptor(key));
}

/** Passes stored bytes through unchanged, but errors with an EncryptedFileError unless they begin with a
 * valid header: for holders of an encrypted file without its key, who cannot authenticate it but can
 * refuse bytes that are not one at all. */
export function createFormatCheckStream(): Transform {
  return toTransform(new FormatCheck());
}

function runAll(core: Core, data: Uint8Array): Buffer[] {
  const out: Buffer[] = [];
  const emit: Emit = (bytes) => out.push(bytes);
  const input = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  core.write(input, emit);
  core.end(emit);
  return out;
}

/** Encrypts a whole buffer at once (small data and tests; use the stream for files). */
export function encryptBuffer(key: Uint8Array, data: Uint8Array, options?: EncryptOptions): Buffer {
  const chunkSize = options?.chunkSize ?? DEFAULT_CHUNK_SIZE;
  return Buffer.concat(runAll(new Encryptor(key, options), data), encryptedSize(data.length, chunkSize));
}

/** Decrypts a whole stored file at once; throws an EncryptedFileError like the stream. */
export function decryptBuffer(key: Uint8Array, data: Uint8Array): Buffer {
  return Buffer.concat(runAll(new Decryptor(key), data));
}
