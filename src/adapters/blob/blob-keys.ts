// Blob keys are made by the server, never taken from a client, so a bad key is a programming error:
// it throws a plain Error (not a DomainError) and must never reach a response as such. What a key may
// be, and why: docs/architecture.md, "Blob stores".

export const MAX_BLOB_KEY_LENGTH = 512;
/** A segment is a file or folder name on disk: 255 bytes is the usual limit (NAME_MAX). */
export const MAX_BLOB_KEY_SEGMENT_LENGTH = 255;

const KEY = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*$/;

const describeKey = (key: unknown) => (typeof key === 'string' ? JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key) : typeof key);

export const isBlobKey = (key: string): boolean =>
  typeof key === 'string' && key.length <= MAX_BLOB_KEY_LENGTH && KEY.test(key) && key.split('/').every((segment) => segment.length <= MAX_BLOB_KEY_SEGMENT_LENGTH);

export function assertBlobKey(key: string): void {
  if (!isBlobKey(key)) throw new Error(`invalid blob key ${describeKey(key)}`);
}

/** A list prefix: '' (everything), a key, or a key followed by '/'. A prefix matches keys by plain
 * string comparison, so 'files/a' matches 'files/a/x' and 'files/ab'. */
export function assertBlobPrefix(prefix: string): void {
  if (prefix === '') return;
  if (typeof prefix !== 'string' || prefix.length > MAX_BLOB_KEY_LENGTH) throw new Error(`invalid blob prefix ${describeKey(prefix)}`);
  const body = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (!isBlobKey(body)) throw new Error(`invalid blob prefix ${describeKey(prefix)}`);
}

/** Validates write's maxBytes: a whole number of bytes, 0 or more. */
export function assertMaxBytes(maxBytes: number | undefined): void {
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 0)) {
    throw new RangeError(`invalid maxBytes ${String(maxBytes)}`);
  }
}

/** Validates a read range: whole numbers, 0 <= start <= end. */
export function assertBlobRange(range: { start: number; end: number }): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`invalid blob range [${String(start)}, ${String(end)}]`);
  }
}
