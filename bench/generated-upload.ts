// A multipart/form-data upload body generated on the fly: text fields, then one file part of
// `size` pseudo-random bytes, hashed as they are produced. Memory: a small pool of random
// blocks, reused (never modified after creation, so a block still queued in a socket is safe).
import { createHash, randomBytes } from 'node:crypto';

export const MiB = 1024 * 1024;

export interface GeneratedUploadOptions {
  /** Text fields, sent before the file part in this order. */
  fields: Record<string, string>;
  /** Bytes of the file part. */
  size: number;
  fileField?: string;
  filename?: string;
  mimeType?: string;
  /** Size of the pieces the body is yielded in (default 1 MiB). */
  blockSize?: number;
  /** How many distinct random blocks the file is drawn from (default 8). */
  poolBlocks?: number;
}

export interface GeneratedUpload {
  contentType: string;
  /** Exact length of the whole body, for Content-Length. */
  contentLength: number;
  /** The body; iterate it once. */
  body(): AsyncGenerator<Buffer>;
  /** sha256 (hex) of the file part; available once body() has been read to its end. */
  sha256(): string;
}

const CRLF = '\r\n';

/** xorshift32: a cheap deterministic choice of the next block. */
function nextRandom(state: { x: number }): number {
  let x = state.x;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  state.x = x >>> 0;
  return state.x;
}

export function generatedUpload(options: GeneratedUploadOptions): GeneratedUpload {
  const { fields, size } = options;
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`size must be a non-negative integer, got ${size}`);
  const blockSize = options.blockSize ?? MiB;
  const pool = Array.from({ length: options.poolBlocks ?? 8 }, () => randomBytes(blockSize));
  const boundary = `----gatehouse-bench-${randomBytes(16).toString('hex')}`;
  let head = '';
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}${CRLF}Content-Disposition: form-data; name="${name}"${CRLF}${CRLF}${value}${CRLF}`;
  }
  head +=
    `--${boundary}${CRLF}` +
    `Content-Disposition: form-data; name="${options.fileField ?? 'file'}"; filename="${options.filename ?? 'bench.bin'}"${CRLF}` +
    `Content-Type: ${options.mimeType ?? 'application/octet-stream'}${CRLF}${CRLF}`;
  const preamble = Buffer.from(head, 'utf8');
  const epilogue = Buffer.from(`${CRLF}--${boundary}--${CRLF}`, 'utf8');
  const hash = createHash('sha256');
  let digest: string | null = null;
  let started = false;

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: preamble.length + size + epilogue.length,
    async *body() {
      if (started) throw new Error('the generated body can be read only once');
      started = true;
      yield preamble;
      const state = { x: 0x9e3779b9 };
      for (let sent = 0; sent < size;) {
        const block = pool[nextRandom(state) % pool.length] as Buffer;
        const piece = size - sent >= blockSize ? block : block.subarray(0, size - sent);
        hash.update(piece);
        sent += piece.length;
        yield piece;
      }
      digest = hash.digest('hex');
      yield epilogue;
    },
    sha256() {
      if (digest === null) throw new Error('the body has not been read to its end');
      return digest;
    },
  };
}
