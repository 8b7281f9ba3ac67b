// One behavioural contract for every BlobStore adapter. Each adapter's test file calls
// describeBlobStoreContract with a factory for a fresh, empty store; anything an adapter cannot
// (yet) honour is listed in `skip` by test or section name, so gaps are explicit rather than silent.
//
// Semantics pinned here (the port leaves them open):
// - read ranges are inclusive; an end past the last byte is clamped to it; a start past the last
//   byte (any range of an empty object included) gives an empty stream; a malformed range
//   (negative, fractional, end < start) throws a plain Error.
// - a bad key or prefix is a programming error: a plain Error, never a DomainError, and write
//   does not read the body then.
// - list order is unspecified; a prefix matches keys by plain string comparison.
// - a key cannot also be the folder of other keys (`a` and `a/b`): such a write throws.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobInfo, BlobStore } from '../../src/application/ports/blob-store.js';
import { DomainError } from '../../src/domain/errors.js';

export type OpenBlobStore = () => Promise<{ store: BlobStore; cleanup(): Promise<void> }>;

const MiB = 1024 * 1024;

// ---- Helpers, shared with the adapter test files ---------------------------------------------

/** Every byte of a stream. */
export async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

export async function readAll(store: BlobStore, key: string, range?: { start: number; end: number }): Promise<Buffer | null> {
  const stream = await store.read(key, range);
  return stream === null ? null : collect(stream);
}

export async function listAll(store: BlobStore, prefix: string): Promise<Array<{ key: string } & BlobInfo>> {
  const out: Array<{ key: string } & BlobInfo> = [];
  for await (const entry of store.list(prefix)) out.push(entry);
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export const listKeys = async (store: BlobStore, prefix: string) => (await listAll(store, prefix)).map((e) => e.key);

/** Yields the buffers, one tick apart, so concurrent writes interleave. */
export async function* chunks(...buffers: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const b of buffers) {
    await tick();
    yield b;
  }
}

/** `size` bytes of `fill`, in `chunkSize` pieces, one tick apart. */
export async function* filled(size: number, fill: number, chunkSize = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let sent = 0; sent < size; sent += chunkSize) {
    await tick();
    yield Buffer.alloc(Math.min(chunkSize, size - sent), fill);
  }
}

/** `size` random bytes in chunks of varying size; `digest()` is their sha256 once consumed. */
export function generated(size: number): { body: AsyncGenerator<Uint8Array>; digest(): string } {
  const hash = createHash('sha256');
  async function* body() {
    let sent = 0;
    while (sent < size) {
      const n = Math.min(size - sent, 1 + Math.floor(Math.random() * 256 * 1024));
      const chunk = randomBytes(n);
      hash.update(chunk);
      sent += n;
      yield chunk;
    }
  }
  return { body: body(), digest: () => hash.digest('hex') };
}

/** Yields `before` bytes, then fails with `error`. */
export async function* failing(before: number, error: Error): AsyncGenerator<Uint8Array> {
  yield* filled(before, 7);
  throw error;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Byte equality without a per-byte deep compare (slow on MiBs), reporting lengths and digests. */
export function expectBytes(actual: Buffer | null | undefined, expected: Uint8Array): void {
  expect(actual, 'no object').not.toBeNull();
  const got = actual ?? Buffer.alloc(0);
  expect({ length: got.length, sha256: sha256(got) }).toEqual({ length: expected.length, sha256: sha256(expected) });
}

/** A promise with its resolve, to hold a source mid-stream. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

const expectDomainCode = async (p: Promise<unknown>, code: string) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe(code);
};

/** Awaits `p`, expecting a plain Error (a programming error), not a DomainError. */
const expectProgrammingError = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(DomainError);
};

export const INVALID_KEYS: Array<[string, string]> = [
  ['parent segment', '../x'],
  ['absolute', '/abs'],
  ['empty segment', 'a//b'],
  ['upper case', 'A'],
  ['dot-dot inside', 'x/../y'],
  ['empty', ''],
  ['600 characters', 'k'.repeat(600)],
  ['a 256-character segment', `a/${'s'.repeat(256)}`],
  ['NUL', 'a\0b'],
  ['trailing slash', 'a/'],
  ['dot segment', 'a/./b'],
  ['hidden (temp folder)', '.tmp/x'],
  ['space', 'a b'],
  ['backslash', 'a\\b'],
];

// ---- The suite ---------------------------------------------------------------------------------

export function describeBlobStoreContract(name: string, open: OpenBlobStore, options: { skip?: string[] } = {}): void {
  const skip = new Set(options.skip ?? []);
  describe(`BlobStore contract: ${name}`, () => {
    let current: { store: BlobStore; cleanup(): Promise<void> } | null = null;
    let sectionName = '';

    beforeEach(async () => {
      current = await open();
    });
    afterEach(async () => {
      const done = current;
      current = null;
      if (done) await done.cleanup();
    });

    const store = (): BlobStore => {
      if (current === null) throw new Error('no store open outside a test');
      return current.store;
    };
    const test = (testName: string, fn: () => Promise<void>, timeout?: number) => {
      const skipped = skip.has(testName) || skip.has(sectionName) || skip.has(`${sectionName}: ${testName}`);
      (skipped ? it.skip : it)(testName, fn, timeout);
    };
    const section = (sectionTitle: string, body: () => void) => {
      describe(sectionTitle, () => {
        const outer = sectionName;
        sectionName = sectionTitle;
        body();
        sectionName = outer;
      });
    };

    section('write and read', () => {
      test('round-trips an empty object', async () => {
        const info = await store().write('e', chunks());
        expect(info.size).toBe(0);
        expect(await store().stat('e')).toEqual(info);
        expect(await readAll(store(), 'e')).toEqual(Buffer.alloc(0));
      });

      test('round-trips a small object from a Node stream', async () => {
        const bytes = Buffer.from('hello, gatehouse');
        const info = await store().write('files/app1/f1', Readable.from([bytes]));
        expect(info.size).toBe(bytes.length);
        expect(await readAll(store(), 'files/app1/f1')).toEqual(bytes);
      });

      test('round-trips a multi-MiB generated stream', async () => {
        const source = generated(8 * MiB + 12345);
        const info = await store().write('big/one', source.body);
        expect(info.size).toBe(8 * MiB + 12345);
        const back = await readAll(store(), 'big/one');
        expect({ length: back?.length, sha256: sha256(back ?? Buffer.alloc(0)) }).toEqual({ length: 8 * MiB + 12345, sha256: source.digest() });
      });

      test('write returns what stat reports, modifiedAt a recent instant', async () => {
        const before = Date.now();
        const info = await store().write('s', chunks(Buffer.from('abc')));
        expect(await store().stat('s')).toEqual(info);
        expect(Number.isInteger(info.modifiedAt)).toBe(true);
        expect(info.modifiedAt).toBeGreaterThanOrEqual(before - 2000);
        expect(info.modifiedAt).toBeLessThanOrEqual(Date.now() + 2000);
      });

      test('an overwrite replaces the contents, larger or smaller', async () => {
        await store().write('k', chunks(Buffer.from('first version')));
        await store().write('k', chunks(Buffer.from('a much longer second version')));
        expect((await readAll(store(), 'k'))?.toString()).toBe('a much longer second version');
        const info = await store().write('k', chunks(Buffer.from('3')));
        expect(info.size).toBe(1);
        expect((await readAll(store(), 'k'))?.toString()).toBe('3');
        expect(await listKeys(store(), '')).toEqual(['k']);
      });

      test('a missing key reads and stats as null', async () => {
        expect(await store().read('nope')).toBeNull();
        expect(await store().read('nope', { start: 0, end: 0 })).toBeNull();
        expect(await store().stat('no/such/key')).toBeNull();
      });

      test('changing the source buffers after the write does not change the object', async () => {
        const buffer = Buffer.alloc(1024, 1);
        await store().write('reuse', chunks(buffer));
        buffer.fill(3);
        expectBytes(await readAll(store(), 'reuse'), Buffer.alloc(1024, 1));
      });

      test('a read started before an overwrite or delete returns the old version whole', async () => {
        const v1 = Buffer.alloc(2 * MiB, 1);
        await store().write('k', chunks(v1));
        const stream = await store().read('k');
        await store().write('k', chunks(Buffer.alloc(3 * MiB, 2)));
        const stream2 = await store().read('k');
        await store().delete('k');
        expectBytes(await collect(stream!), v1);
        expectBytes(await collect(stream2!), Buffer.alloc(3 * MiB, 2));
      });
    });

    section('ranges', () => {
      const bytes = Buffer.from('0123456789');
      beforeEach(async () => {
        await store().write('r', chunks(bytes));
      });
      const range = async (start: number, end: number) => (await readAll(store(), 'r', { start, end }))?.toString();

      test('first byte', async () => {
        expect(await range(0, 0)).toBe('0');
      });
      test('last byte', async () => {
        expect(await range(9, 9)).toBe('9');
      });
      test('middle, inclusive at both ends', async () => {
        expect(await range(3, 6)).toBe('3456');
      });
      test('whole', async () => {
        expect(await range(0, 9)).toBe('0123456789');
      });
      test('an end past the last byte is clamped to it', async () => {
        expect(await range(7, 100)).toBe('789');
        expect(await range(0, Number.MAX_SAFE_INTEGER)).toBe('0123456789');
      });
      test('a start past the last byte gives an empty stream', async () => {
        expect(await range(10, 20)).toBe('');
        expect(await range(1000, 1000)).toBe('');
      });
      test('any range of an empty object is empty', async () => {
        await store().write('empty', chunks());
        expect(await readAll(store(), 'empty', { start: 0, end: 0 })).toEqual(Buffer.alloc(0));
      });
      test('a range inside a multi-MiB object', async () => {
        const big = randomBytes(3 * MiB);
        await store().write('big', chunks(big.subarray(0, MiB), big.subarray(MiB)));
        const start = MiB - 10;
        const end = 2 * MiB + 10;
        expectBytes(await readAll(store(), 'big', { start, end }), big.subarray(start, end + 1));
      });
      test('a malformed range throws a plain Error', async () => {
        await expectProgrammingError(store().read('r', { start: 5, end: 4 }));
        await expectProgrammingError(store().read('r', { start: -1, end: 4 }));
        await expectProgrammingError(store().read('r', { start: 0.5, end: 4 }));
        await expectProgrammingError(store().read('r', { start: 0, end: Number.NaN }));
      });
    });

    section('delete', () => {
      test('removes the object', async () => {
        await store().write('d/x', chunks(Buffer.from('x')));
        await store().delete('d/x');
        expect(await store().stat('d/x')).toBeNull();
        expect(await store().read('d/x')).toBeNull();
        expect(await listKeys(store(), '')).toEqual([]);
      });
      test('is idempotent', async () => {
        await store().delete('never/written');
        await store().write('d', chunks(Buffer.from('x')));
        await store().delete('d');
        await store().delete('d');
        expect(await store().stat('d')).toBeNull();
      });
      test('leaves siblings and cousins alone, and the key can be written again', async () => {
        for (const k of ['a/b/c', 'a/b/d', 'a/e']) await store().write(k, chunks(Buffer.from(k)));
        await store().delete('a/b/c');
        expect(await listKeys(store(), '')).toEqual(['a/b/d', 'a/e']);
        await store().delete('a/b/d');
        expect(await listKeys(store(), '')).toEqual(['a/e']);
        await store().write('a/b/c', chunks(Buffer.from('again')));
        expect((await readAll(store(), 'a/b/c'))?.toString()).toBe('again');
      });
    });

    section('list', () => {
      const keys = ['apps/a1/files/f1', 'apps/a1/files/f2', 'apps/a1/staging/s1', 'apps/a2/files/f1', 'apps/ab/files/f1', 'other'];
      const seed = async () => {
        for (const k of keys) await store().write(k, chunks(Buffer.from(k)));
      };

      test('an empty store lists nothing', async () => {
        expect(await listAll(store(), '')).toEqual([]);
        expect(await listAll(store(), 'apps/')).toEqual([]);
      });
      test("'' lists every nested key with its size and time", async () => {
        await seed();
        const all = await listAll(store(), '');
        expect(all.map((e) => e.key)).toEqual(keys);
        for (const e of all) expect({ size: e.size, modifiedAt: e.modifiedAt }).toEqual(await store().stat(e.key));
        expect(all[0]?.size).toBe(keys[0]?.length);
      });
      test('a folder prefix lists only beneath it', async () => {
        await seed();
        expect(await listKeys(store(), 'apps/a1/')).toEqual(['apps/a1/files/f1', 'apps/a1/files/f2', 'apps/a1/staging/s1']);
        expect(await listKeys(store(), 'apps/a1/files/')).toEqual(['apps/a1/files/f1', 'apps/a1/files/f2']);
      });
      test('a prefix matches by string, partial segments included', async () => {
        await seed();
        expect(await listKeys(store(), 'apps/a')).toEqual(['apps/a1/files/f1', 'apps/a1/files/f2', 'apps/a1/staging/s1', 'apps/a2/files/f1', 'apps/ab/files/f1']);
        expect(await listKeys(store(), 'apps/a1/files/f')).toEqual(['apps/a1/files/f1', 'apps/a1/files/f2']);
        expect(await listKeys(store(), 'ot')).toEqual(['other']);
      });
      test('a prefix equal to a key lists that key', async () => {
        await seed();
        expect(await listKeys(store(), 'apps/a1/files/f1')).toEqual(['apps/a1/files/f1']);
        expect(await listKeys(store(), 'other')).toEqual(['other']);
      });
      test('a prefix matching nothing lists nothing', async () => {
        await seed();
        expect(await listKeys(store(), 'apps/zz/')).toEqual([]);
        expect(await listKeys(store(), 'nothing')).toEqual([]);
        expect(await listKeys(store(), 'other/')).toEqual([]);
      });
      test('a malformed prefix throws a plain Error', async () => {
        for (const prefix of ['/x', 'a//', 'A', '../', 'a/../b', '.tmp/']) {
          await expectProgrammingError(listKeys(store(), prefix));
        }
      });
    });

    section('size limit', () => {
      test('exactly maxBytes is accepted', async () => {
        const info = await store().write('m', filled(1000, 1, 300), { maxBytes: 1000 });
        expect(info.size).toBe(1000);
        expect((await readAll(store(), 'm'))?.length).toBe(1000);
      });
      test('an empty body under maxBytes 0 is accepted', async () => {
        expect((await store().write('m', chunks(), { maxBytes: 0 })).size).toBe(0);
      });
      test('maxBytes + 1 fails with PAYLOAD_TOO_LARGE and stores nothing', async () => {
        await expectDomainCode(store().write('m/x', filled(1001, 1, 300), { maxBytes: 1000 }), 'PAYLOAD_TOO_LARGE');
        expect(await store().stat('m/x')).toBeNull();
        expect(await store().read('m/x')).toBeNull();
        expect(await listAll(store(), '')).toEqual([]);
      });
      test('an overwrite over the limit keeps the previous version', async () => {
        await store().write('m', chunks(Buffer.from('previous')));
        await expectDomainCode(store().write('m', filled(2 * MiB, 1), { maxBytes: MiB }), 'PAYLOAD_TOO_LARGE');
        expect((await readAll(store(), 'm'))?.toString()).toBe('previous');
      });
      test('stops reading an endless source once over the limit', async () => {
        let pulled = 0;
        async function* endless() {
          for (;;) {
            pulled++;
            yield Buffer.alloc(64 * 1024, 1);
          }
        }
        await expectDomainCode(store().write('m', endless(), { maxBytes: MiB }), 'PAYLOAD_TOO_LARGE');
        expect(pulled).toBeLessThan(64);
      });
      test('a malformed maxBytes throws a plain Error', async () => {
        await expectProgrammingError(store().write('m', chunks(), { maxBytes: -1 }));
        await expectProgrammingError(store().write('m', chunks(), { maxBytes: 1.5 }));
        expect(await store().stat('m')).toBeNull();
      });
    });

    section('failing sources', () => {
      test('a source failing midway rejects with its error and leaves nothing', async () => {
        const boom = new Error('client went away');
        await expect(store().write('f/x', failing(3 * MiB, boom))).rejects.toBe(boom);
        expect(await store().stat('f/x')).toBeNull();
        expect(await listAll(store(), '')).toEqual([]);
      });
      test('a Node stream destroyed midway rejects and leaves nothing', async () => {
        const stream = new Readable({ read() {} });
        const writing = store().write('f', stream);
        stream.push(Buffer.alloc(1000, 1));
        setTimeout(() => stream.destroy(new Error('aborted')), 20);
        await expect(writing).rejects.toThrow('aborted');
        expect(await store().stat('f')).toBeNull();
      });
      test('a Node stream destroyed before the store reads it rejects, and nothing is uncaught', async () => {
        const stream = new Readable({ read() {} });
        const writing = store().write('f', stream);
        // Destroyed while the store is still preparing (its folder, the key check): the 'error'
        // comes before the store reads, and must reach the write's promise, not the process.
        stream.destroy(new Error('gone early'));
        await expect(writing).rejects.toThrow('gone early');
        expect(await store().stat('f')).toBeNull();
      });
      test('a failing overwrite keeps the previous version', async () => {
        await store().write('f', chunks(Buffer.from('previous')));
        await expect(store().write('f', failing(MiB, new Error('boom')))).rejects.toThrow('boom');
        expect((await readAll(store(), 'f'))?.toString()).toBe('previous');
      });
      test('a key cannot also be a folder of keys: the clashing write throws, leaving both sides', async () => {
        await store().write('c/d', chunks(Buffer.from('below')));
        await expectProgrammingError(store().write('c', chunks(Buffer.from('object on a folder'))));
        await store().write('e', chunks(Buffer.from('object')));
        await expectProgrammingError(store().write('e/f', chunks(Buffer.from('folder on an object'))));
        expect(await listKeys(store(), '')).toEqual(['c/d', 'e']);
        expect(await store().stat('c')).toBeNull();
        expect(await store().read('c')).toBeNull();
        await store().delete('c'); // no object there: nothing happens
        expect((await readAll(store(), 'c/d'))?.toString()).toBe('below');
      });
    });

    section('atomicity and concurrency', () => {
      test('an object in flight is invisible; the previous version stays readable until the end', async () => {
        await store().write('old', chunks(Buffer.from('previous')));
        for (const key of ['new', 'old']) {
          const hold = gate();
          let reached = false;
          async function* held() {
            yield Buffer.alloc(MiB, 1);
            yield Buffer.alloc(MiB, 2);
            reached = true;
            await hold.promise;
            yield Buffer.alloc(MiB, 3);
          }
          const writing = store().write(key, held());
          while (!reached) await tick();
          await new Promise((r) => setTimeout(r, 20));
          if (key === 'new') {
            expect(await store().stat('new')).toBeNull();
            expect(await store().read('new')).toBeNull();
          } else {
            expect(await store().stat('old')).toMatchObject({ size: 8 });
            expect((await readAll(store(), 'old'))?.toString()).toBe('previous');
          }
          expect(await listKeys(store(), '')).toEqual(key === 'new' ? ['old'] : ['new', 'old']);
          hold.open();
          expect((await writing).size).toBe(3 * MiB);
          expect((await store().stat(key))?.size).toBe(3 * MiB);
        }
      });

      test('concurrent writes to different keys all land whole', async () => {
        const keys = Array.from({ length: 20 }, (_, i) => `c/${i % 4}/k${i}`);
        await Promise.all(keys.map((k, i) => store().write(k, filled(256 * 1024 + i, i + 1, 16 * 1024))));
        expect(await listKeys(store(), 'c/')).toEqual([...keys].sort());
        for (const [i, k] of keys.entries()) expectBytes(await readAll(store(), k), Buffer.alloc(256 * 1024 + i, i + 1));
      });

      test('concurrent writes to one key end with one complete version, never a mix', async () => {
        const sizes = Array.from({ length: 8 }, (_, v) => MiB + v * 4099);
        const infos = await Promise.all(sizes.map((size, v) => store().write('same', filled(size, v + 1, 32 * 1024))));
        expect(infos.map((i) => i.size)).toEqual(sizes);
        const back = await readAll(store(), 'same');
        const version = (back?.[0] ?? 0) - 1;
        expect(version).toBeGreaterThanOrEqual(0);
        expectBytes(back, Buffer.alloc(sizes[version] ?? 0, version + 1));
        expect((await store().stat('same'))?.size).toBe(sizes[version]);
        expect(await listKeys(store(), '')).toEqual(['same']);
      });

      test('concurrent deletes and writes under one folder leave exactly the written keys', async () => {
        await Promise.all(Array.from({ length: 10 }, (_, i) => store().write(`p/q/d${i}`, chunks(Buffer.from('x')))));
        await Promise.all([...Array.from({ length: 10 }, (_, i) => store().delete(`p/q/d${i}`)), ...Array.from({ length: 10 }, (_, i) => store().write(`p/q/w${i}`, filled(1000, 1, 100)))]);
        expect(await listKeys(store(), '')).toEqual(Array.from({ length: 10 }, (_, i) => `p/q/w${i}`).sort());
      });
    });

    section('keys', () => {
      for (const [label, key] of INVALID_KEYS) {
        test(`refuses a bad key (${label}) with a plain Error in every method, reading nothing`, async () => {
          let pulled = false;
          async function* body() {
            pulled = true;
            yield Buffer.from('x');
          }
          await expectProgrammingError(store().write(key, body()));
          expect(pulled).toBe(false);
          await expectProgrammingError(store().read(key));
          await expectProgrammingError(store().stat(key));
          await expectProgrammingError(store().delete(key));
          expect(await listAll(store(), '')).toEqual([]);
        });
      }

      test('accepts every well-formed shape up to 512 characters, 255 a segment', async () => {
        const good = ['a', '0', 'a-b_c', 'x/0/y-z_9', `${'k'.repeat(255)}/${'v'.repeat(254)}/w`];
        for (const key of good) await store().write(key, chunks(Buffer.from(key.slice(0, 10))));
        expect(await listKeys(store(), '')).toEqual([...good].sort());
        expect(good.at(-1)?.length).toBe(512);
        await expectProgrammingError(store().write('k'.repeat(513), chunks()));
      });
    });

    section('ping', () => {
      test('resolves on a working store, empty or not', async () => {
        await store().ping();
        await store().write('p', chunks(Buffer.from('x')));
        await store().ping();
      });
    });
  });
}
