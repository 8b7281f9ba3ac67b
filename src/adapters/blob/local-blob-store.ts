// BlobStore on a local folder: the object with key `a/b` is the file `<root>/a/b`. A write streams
// into a private temp file and is renamed onto its key once fsynced, so readers never see a part;
// writes, reads and the temp-file sweep: docs/architecture.md, "Blob stores".
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { constants, createWriteStream, open as openCallback } from 'node:fs';
import { access, lstat, mkdir, open, readdir, rename, rm, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { BlobInfo, BlobStore } from '../../application/ports/blob-store.js';
import { DomainError } from '../../domain/errors.js';
import { assertBlobKey, assertBlobPrefix, assertBlobRange, assertMaxBytes, isBlobKey } from './blob-keys.js';
import { writeBehind, type WriteBehind } from './write-behind.js';
import { keepEarlyErrors } from './early-errors.js';

/** The temp folder under the root. */
export const TEMP_DIR = '.tmp';
/** Temp files untouched this long are crash leftovers. */
export const TEMP_MAX_AGE_MS = 60 * 60 * 1000;
/** How often ping() sweeps at most. */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

const WRITE_HIGH_WATER_MARK = 1024 * 1024;
/** How much a write puts in the file between flushes to disk (see write-behind.ts). */
const WRITE_BEHIND_BYTES = 32 * 1024 * 1024;
const openFd = promisify(openCallback);
const RENAME_ATTEMPTS = 5;

const errorCode = (e: unknown): string | undefined => (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined);

/** Errors meaning "no object here": nothing at the path, or a folder where the file would be. */
const isMissing = (e: unknown) => ['ENOENT', 'ENOTDIR', 'EISDIR'].includes(errorCode(e) ?? '');

const infoOf = (st: { size: number; mtimeMs: number }): BlobInfo => ({ size: st.size, modifiedAt: Math.trunc(st.mtimeMs) });

/** Removes temp files under `<root>/.tmp` not modified for `olderThanMs`; returns how many. */
export async function sweepTempFiles(root: string, olderThanMs: number, now: number = Date.now()): Promise<number> {
  const dir = join(resolve(root), TEMP_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return 0;
    throw e;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = await lstat(path);
      if (now - st.mtimeMs < olderThanMs) continue;
      await rm(path, { recursive: true, force: true });
      removed++;
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') throw e;
    }
  }
  return removed;
}

/** fsync of a written file (through a second descriptor: the stream closed its own), and its info. */
async function syncFile(path: string): Promise<BlobInfo> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
    return infoOf(await handle.stat());
  } finally {
    await handle.close();
  }
}

/** fsync of a folder, so a rename into it survives a crash. Some platforms cannot; that is skipped. */
async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (e) {
    if (!['EISDIR', 'EINVAL', 'ENOTSUP', 'EPERM', 'EBADF'].includes(errorCode(e) ?? '')) throw e;
  } finally {
    await handle?.close();
  }
}

/** Counts bytes on their way to the file; fails past `maxBytes`. A Transform, not an async generator:
 * iterating a stream reads all it has buffered as one concatenated copy, dear for writes of many small
 * chunks (docs/performance-log.md, "figures from comments"). */
function limitBytes(maxBytes: number, counted: { size: number }, behind: WriteBehind): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counted.size += chunk.length;
      if (counted.size > maxBytes) return callback(new DomainError('PAYLOAD_TOO_LARGE', `the upload exceeds ${maxBytes} bytes`));
      behind.wrote(chunk.length);
      callback(null, chunk);
    },
  });
}

export function createLocalBlobStore({ root }: { root: string }): BlobStore {
  if (typeof root !== 'string' || root === '') throw new Error('local blob store: root is required');
  const base = resolve(root);
  const tempDir = join(base, TEMP_DIR);
  let lastSweep = Number.NEGATIVE_INFINITY;

  /** The file of a key, checked to lie inside the root. */
  const pathOf = (key: string): string => {
    assertBlobKey(key);
    const path = resolve(base, ...key.split('/'));
    if (!path.startsWith(base + sep)) throw new Error(`blob key ${JSON.stringify(key)} leaves the root`);
    return path;
  };

  /** Moves the finished temp file onto its key, retrying when a delete pruned the folder meanwhile. */
  const publish = async (tmp: string, target: string, key: string): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dirname(target), { recursive: true });
        await rename(tmp, target);
        return;
      } catch (e) {
        const code = errorCode(e);
        if (code === 'ENOENT' && attempt < RENAME_ATTEMPTS) continue;
        if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR' || code === 'ENOTEMPTY') {
          throw new Error(`blob key ${JSON.stringify(key)} clashes with an existing object or its folder`, { cause: e });
        }
        throw e;
      }
    }
  };

  async function* walk(dir: string, dirKey: string, prefix: string): AsyncGenerator<{ key: string } & BlobInfo> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      // `.tmp` and anything else no key can name.
      if (entry.name.startsWith('.')) continue;
      const key = dirKey === '' ? entry.name : `${dirKey}/${entry.name}`;
      if (entry.isDirectory()) {
        if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* walk(join(dir, entry.name), key, prefix);
      } else if (entry.isFile() && key.startsWith(prefix) && isBlobKey(key)) {
        try {
          yield { key, ...infoOf(await stat(join(dir, entry.name))) };
        } catch (e) {
          if (!isMissing(e)) throw e; // deleted while listing
        }
      }
    }
  }

  return {
    async write(key, body, options = {}) {
      const target = pathOf(key);
      assertMaxBytes(options.maxBytes);
      const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
      keepEarlyErrors(body);
      await mkdir(tempDir, { recursive: true });
      const tmp = join(tempDir, randomBytes(16).toString('hex'));
      // Opened here ('wx': a fresh file, never someone else's) so the stream has its fd at once and
      // a failure can wait for it to close before removing the file.
      const fd = await openFd(tmp, 'wx', 0o600);
      const out = createWriteStream('', { fd, highWaterMark: WRITE_HIGH_WATER_MARK });
      const behind = writeBehind(tmp, WRITE_BEHIND_BYTES);
      try {
        const counted = { size: 0 };
        await pipeline(body, limitBytes(maxBytes, counted, behind), out);
        await behind.finish();
        const info = await syncFile(tmp);
        await publish(tmp, target, key);
        await syncDir(dirname(target));
        return info;
      } catch (e) {
        await behind.abandon();
        if (!out.closed) {
          out.destroy();
          await once(out, 'close').catch(() => undefined);
        }
        await rm(tmp, { force: true }).catch(() => undefined);
        throw e;
      }
    },

    async read(key, range, options) {
      const path = pathOf(key);
      if (range !== undefined) assertBlobRange(range);
      const chunkBytes = options?.chunkBytes;
      if (chunkBytes !== undefined && (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1)) {
        throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
      }
      let handle: FileHandle;
      try {
        handle = await open(path, 'r');
      } catch (e) {
        if (isMissing(e)) return null;
        throw e;
      }
      try {
        const st = await handle.stat();
        if (!st.isFile()) {
          await handle.close();
          return null;
        }
        const start = range?.start ?? 0;
        const end = Math.min(range?.end ?? st.size - 1, st.size - 1);
        if (start > end) {
          await handle.close();
          return Readable.from([]);
        }
        return handle.createReadStream({ start, end, ...(chunkBytes === undefined ? {} : { highWaterMark: chunkBytes }) });
      } catch (e) {
        await handle.close().catch(() => undefined);
        throw e;
      }
    },

    async stat(key) {
      const path = pathOf(key);
      try {
        const st = await stat(path);
        return st.isFile() ? infoOf(st) : null;
      } catch (e) {
        if (isMissing(e)) return null;
        throw e;
      }
    },

    async delete(key) {
      const path = pathOf(key);
      try {
        await unlink(path);
      } catch (e) {
        if (!isMissing(e)) throw e;
      }
      // Prune folders left empty, up to (not including) the root. Best effort: a folder another
      // write just filled stays (ENOTEMPTY), and a write racing this prune retries its rename.
      for (let dir = dirname(path); dir !== base && dir.startsWith(base + sep); dir = dirname(dir)) {
        try {
          await rmdir(dir);
        } catch {
          break;
        }
      }
    },

    list(prefix) {
      assertBlobPrefix(prefix);
      const slash = prefix.lastIndexOf('/');
      const dirKey = slash < 0 ? '' : prefix.slice(0, slash);
      const dir = dirKey === '' ? base : join(base, ...dirKey.split('/'));
      return walk(dir, dirKey, prefix);
    },

    async ping() {
      await mkdir(base, { recursive: true });
      await access(base, constants.R_OK | constants.W_OK | constants.X_OK);
      const now = Date.now();
      if (now - lastSweep >= SWEEP_INTERVAL_MS) {
        lastSweep = now;
        await sweepTempFiles(base, TEMP_MAX_AGE_MS, now);
      }
    },
  };
}
