// The BlobStore contract against the local folder store, each test in a fresh temp folder, plus
// what only a folder can show: where the bytes go (and never go), the temp-file life cycle, the
// rename that makes writes atomic, read piece sizes, flushing as a write goes, and flat memory on
// a large write.
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalBlobStore, sweepTempFiles, TEMP_DIR, TEMP_MAX_AGE_MS } from '../../src/adapters/blob/local-blob-store.js';
import { writeBehind } from '../../src/adapters/blob/write-behind.js';
import type { BlobStore } from '../../src/application/ports/blob-store.js';
import { DomainError } from '../../src/domain/errors.js';
import { chunks, collect, describeBlobStoreContract, failing, filled, gate, INVALID_KEYS, listKeys, readAll } from './blob-store-contract.js';

const MiB = 1024 * 1024;

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-blobs-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

describeBlobStoreContract('local', async () => {
  const { dir, remove } = await tempDir();
  // The root does not exist yet: the store must create what it needs on first use.
  return { store: createLocalBlobStore({ root: join(dir, 'blobs') }), cleanup: remove };
});

/** Every path under `dir` (relative, '/'-separated) with what it is and, for files, a digest. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    const key = relative(dir, path).split(sep).join('/');
    if (entry.isFile()) {
      const st = await stat(path);
      out.set(
        key,
        `file ${st.size} ${st.mtimeMs} ${createHash('sha256')
          .update(await readFile(path))
          .digest('hex')}`,
      );
    } else out.set(key, entry.isDirectory() ? 'dir' : 'other');
  }
  return out;
}

const tempFiles = async (root: string) => {
  try {
    return await readdir(join(root, TEMP_DIR));
  } catch {
    return [];
  }
};

describe('local blob store on disk', () => {
  let dir = '';
  let root = '';
  let store: BlobStore;
  let remove: () => Promise<void> = async () => {};

  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
    root = join(dir, 'blobs');
    store = createLocalBlobStore({ root });
  });
  afterEach(async () => {
    await remove();
  });

  it('touches nothing when made, then keeps each object at <root>/<key>', async () => {
    await expect(lstat(root)).rejects.toMatchObject({ code: 'ENOENT' });
    await store.write('apps/a1/f1', chunks(Buffer.from('contents')));
    expect(await readFile(join(root, 'apps', 'a1', 'f1'), 'utf8')).toBe('contents');
    expect(await tempFiles(root)).toEqual([]);
  });

  it('refuses an empty root', () => {
    expect(() => createLocalBlobStore({ root: '' })).toThrow();
  });

  it('never writes outside its root', async () => {
    await writeFile(join(dir, 'sentinel'), 'outside');
    await mkdir(join(dir, 'neighbour', 'x'), { recursive: true });
    await writeFile(join(dir, 'neighbour', 'x', 'y'), 'outside too');
    const before = await snapshot(dir);

    for (const key of ['a', 'a1/b/c', 'a1/b/d', 'x/y/z/w']) await store.write(key, filled(100_000, 1, 10_000));
    await store.write('a', chunks(Buffer.from('overwrite')));
    await expect(store.write('big', filled(MiB, 1), { maxBytes: 1000 })).rejects.toBeInstanceOf(DomainError);
    await expect(store.write('fails', failing(1000, new Error('boom')))).rejects.toThrow('boom');
    for (const key of ['../sentinel', '../neighbour/x/y', 'x/../../sentinel', '/tmp/x', 'neighbour/../../sentinel']) {
      await expect(store.write(key, chunks(Buffer.from('escape')))).rejects.toThrow();
      await expect(store.delete(key)).rejects.toThrow();
    }
    await store.delete('a1/b/c');
    await store.delete('x/y/z/w');
    await store.delete('never/was');
    await listKeys(store, '');
    await store.ping();

    const after = await snapshot(dir);
    const outside = (m: Map<string, string>) => new Map([...m].filter(([k]) => k !== 'blobs' && !k.startsWith('blobs/')));
    expect(outside(after)).toEqual(outside(before));
    expect([...after.keys()].filter((k) => k.startsWith('blobs/')).sort()).toEqual(['blobs/.tmp', 'blobs/a', 'blobs/a1', 'blobs/a1/b', 'blobs/a1/b/d']);
  });

  it('leaves no temp file after a refused, failed or clashing write', async () => {
    await expect(store.write('k', filled(2 * MiB, 1), { maxBytes: MiB })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await tempFiles(root)).toEqual([]);
    await expect(store.write('k', failing(MiB, new Error('boom')))).rejects.toThrow('boom');
    expect(await tempFiles(root)).toEqual([]);
    await store.write('c/d', chunks(Buffer.from('x')));
    await expect(store.write('c', chunks(Buffer.from('clash')))).rejects.toThrow(/clashes/);
    await expect(store.write('c/d/e', chunks(Buffer.from('clash')))).rejects.toThrow(/clashes/);
    expect(await tempFiles(root)).toEqual([]);
    expect(await listKeys(store, '')).toEqual(['c/d']);
  });

  it('streams into a temp file while in flight, then renames it onto the key', async () => {
    await store.write('k', chunks(Buffer.from('previous')));
    const previousIno = (await stat(join(root, 'k'))).ino;
    const hold = gate();
    async function* held() {
      for (let i = 0; i < 4; i++) yield Buffer.alloc(MiB, 1);
      await hold.promise;
      yield Buffer.alloc(MiB, 2);
    }
    const writing = store.write('k', held());

    // Wait until the first 4 MiB sit in the temp file.
    let temp: string | undefined;
    for (let i = 0; i < 2000; i++) {
      temp = (await tempFiles(root))[0];
      if (temp !== undefined && (await stat(join(root, TEMP_DIR, temp))).size === 4 * MiB) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(temp).toBeDefined();
    const tempIno = (await stat(join(root, TEMP_DIR, temp!))).ino;
    // Meanwhile the key is still the previous file, whole.
    expect((await stat(join(root, 'k'))).ino).toBe(previousIno);
    expect(await store.stat('k')).toMatchObject({ size: 8 });
    expect((await readAll(store, 'k'))?.toString()).toBe('previous');

    hold.open();
    expect((await writing).size).toBe(5 * MiB);
    expect((await stat(join(root, 'k'))).ino).toBe(tempIno);
    expect(await tempFiles(root)).toEqual([]);
  });

  it('reads in pieces of the size asked for, 64 KiB ones by default', async () => {
    const bytes = Buffer.alloc(3 * MiB + 5, 7);
    await store.write('k', chunks(bytes));
    const sizes = async (options?: { chunkBytes: number }, range?: { start: number; end: number }) => {
      const out: number[] = [];
      for await (const chunk of (await store.read('k', range, options))!) out.push((chunk as Buffer).length);
      return out;
    };
    expect(await sizes({ chunkBytes: MiB })).toEqual([MiB, MiB, MiB, 5]);
    expect(await sizes({ chunkBytes: MiB }, { start: 10, end: MiB + 9 })).toEqual([MiB]);
    expect(new Set(await sizes())).toEqual(new Set([64 * 1024, 5]));
    for (const chunkBytes of [0, -1, 1.5, Number.NaN]) {
      await expect(store.read('k', undefined, { chunkBytes })).rejects.toBeInstanceOf(RangeError);
    }
  });

  it('shows readers the previous version or the next, never a part, across many overwrites', async () => {
    const size = 2 * MiB;
    await store.write('k', filled(size, 1));
    let done = false;
    const seen = new Set<number>();
    const reader = (async () => {
      while (!done) {
        const bytes = await readAll(store, 'k');
        expect(bytes?.length).toBe(size);
        const first = bytes![0]!;
        expect(bytes!.every((b) => b === first)).toBe(true);
        seen.add(first);
        await tick();
      }
    })();
    for (let v = 2; v <= 10; v++) await store.write('k', filled(size, v, 128 * 1024));
    done = true;
    await reader;
    expect(seen.size).toBeGreaterThan(1);
  });

  it('prunes folders a delete leaves empty, up to but not including the root', async () => {
    await store.write('a/b/c/d', chunks(Buffer.from('1')));
    await store.write('a/x', chunks(Buffer.from('2')));
    await store.delete('a/b/c/d');
    expect(await readdir(join(root, 'a'))).toEqual(['x']);
    await store.delete('a/x');
    expect((await readdir(root)).filter((n) => n !== TEMP_DIR)).toEqual([]);
    await store.delete('a/x');
    expect((await lstat(root)).isDirectory()).toBe(true);
  });

  it('lists no temp file, hidden file or name no key could have', async () => {
    await store.write('real/one', chunks(Buffer.from('1')));
    await mkdir(join(root, TEMP_DIR), { recursive: true });
    await writeFile(join(root, TEMP_DIR, 'leftover'), 'x');
    await writeFile(join(root, '.DS_Store'), 'x');
    await writeFile(join(root, 'real', 'UPPER'), 'x');
    await writeFile(join(root, 'real', 'with space'), 'x');
    expect(await listKeys(store, '')).toEqual(['real/one']);
    expect(await listKeys(store, 'real/')).toEqual(['real/one']);
  });

  it('sweepTempFiles removes temp files idle longer than asked, and nothing else', async () => {
    expect(await sweepTempFiles(root, TEMP_MAX_AGE_MS)).toBe(0); // no .tmp yet
    await store.write('keep', chunks(Buffer.from('x')));
    const tmp = join(root, TEMP_DIR);
    await writeFile(join(tmp, 'stale'), 'crash leftover');
    await writeFile(join(tmp, 'fresh'), 'a write in flight');
    const twoHoursAgo = new Date(Date.now() - 2 * TEMP_MAX_AGE_MS);
    await utimes(join(tmp, 'stale'), twoHoursAgo, twoHoursAgo);
    expect(await sweepTempFiles(root, TEMP_MAX_AGE_MS)).toBe(1);
    expect(await readdir(tmp)).toEqual(['fresh']);
    expect(await listKeys(store, '')).toEqual(['keep']);
  });

  it('ping creates a missing root and sweeps stale temp files', async () => {
    await mkdir(join(root, TEMP_DIR), { recursive: true });
    await writeFile(join(root, TEMP_DIR, 'stale'), 'crash leftover');
    const old = new Date(Date.now() - 2 * TEMP_MAX_AGE_MS);
    await utimes(join(root, TEMP_DIR, 'stale'), old, old);
    await store.ping();
    expect(await tempFiles(root)).toEqual([]);

    const fresh = createLocalBlobStore({ root: join(dir, 'not', 'yet') });
    await fresh.ping();
    expect((await lstat(join(dir, 'not', 'yet'))).isDirectory()).toBe(true);
  });

  it('ping fails when the root cannot be a folder', async () => {
    await writeFile(join(dir, 'a-file'), 'x');
    await expect(createLocalBlobStore({ root: join(dir, 'a-file') }).ping()).rejects.toThrow();
    await expect(createLocalBlobStore({ root: join(dir, 'a-file', 'below') }).ping()).rejects.toThrow();
  });

  it('refuses every bad key before touching the disk', async () => {
    for (const [, key] of INVALID_KEYS) await expect(store.write(key, chunks(Buffer.from('x')))).rejects.toThrow();
    await expect(lstat(root)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('write-behind', () => {
  let dir = '';
  let remove: () => Promise<void> = async () => {};
  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
  });
  afterEach(async () => {
    await remove();
  });

  it('flushes once enough bytes have gone by, and reports a failed flush', async () => {
    const file = join(dir, 'f');
    await writeFile(file, Buffer.alloc(1000, 1));
    const fine = writeBehind(file, 100);
    for (let i = 0; i < 10; i++) fine.wrote(50);
    await expect(fine.finish()).resolves.toBeUndefined();

    // A path that cannot be opened makes any flush fail: the failure surfaces once, at the end.
    const missing = join(dir, 'missing');
    const failing = writeBehind(missing, 100);
    failing.wrote(100);
    failing.wrote(100);
    await expect(failing.finish()).rejects.toMatchObject({ code: 'ENOENT' });
    const abandoned = writeBehind(missing, 100);
    abandoned.wrote(100);
    await expect(abandoned.abandon()).resolves.toBeUndefined();
  });

  it('does not flush a write smaller than its step', async () => {
    const behind = writeBehind(join(dir, 'missing'), 100);
    behind.wrote(60);
    behind.wrote(39);
    await expect(behind.finish()).resolves.toBeUndefined();
  });
});

describe('local blob store memory', () => {
  let dir = '';
  let remove: () => Promise<void> = async () => {};
  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
  });
  afterEach(async () => {
    await remove();
  });

  // A sanity check that nothing gathers the bytes: a 512 MiB write and read-back must not grow the
  // process by anything near their size. The margin is generous (RSS is noisy); a store that
  // buffered the object would overshoot it eightfold.
  it('stays flat while writing and reading back 512 MiB', async () => {
    const store = createLocalBlobStore({ root: join(dir, 'blobs') });
    const total = 512;
    const buffer = Buffer.alloc(MiB, 0x5a);
    let peak = 0;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().rss);
    };
    async function* body() {
      for (let i = 0; i < total; i++) {
        if (i % 8 === 0) sample();
        yield buffer;
      }
    }
    // Warm up the code paths so their one-off allocations are not counted.
    await store.write('warm', chunks(Buffer.alloc(2 * MiB)));
    await collect((await store.read('warm'))!);
    const before = process.memoryUsage().rss;

    const info = await store.write('huge', body());
    sample();
    expect(info.size).toBe(total * MiB);

    let read = 0;
    let n = 0;
    for await (const chunk of (await store.read('huge'))!) {
      read += (chunk as Buffer).length;
      if (++n % 64 === 0) sample();
    }
    sample();
    expect(read).toBe(total * MiB);
    const growth = peak - before;
    expect(growth, `RSS grew by ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(64 * MiB);
  }, 180_000);
});
