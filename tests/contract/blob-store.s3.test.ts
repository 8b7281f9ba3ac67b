// The BlobStore contract against the S3 adapter, on a real S3-protocol server (s3rver, see
// tests/support/s3-server.ts) on 127.0.0.1: every test gets a fresh bucket, and its store a key
// prefix, so both the prefix handling and isolation are exercised. Nothing of the suite is skipped.
// Then what only S3 shows: multipart uploads and their abort, ranges served by S3, ping's errors,
// prefixes, option checks and error messages.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createS3BlobStore } from '../../src/adapters/blob/s3-blob-store.js';
import type { BlobStore } from '../../src/application/ports/blob-store.js';
import { DomainError } from '../../src/domain/errors.js';
import { closedPort, startS3Server, type S3TestServer } from '../support/s3-server.js';
import { chunks, collect, describeBlobStoreContract, expectBytes, failing, filled, generated, listKeys, readAll, sha256 } from './blob-store-contract.js';

const MiB = 1024 * 1024;

let server: S3TestServer;
beforeAll(async () => {
  server = await startS3Server();
});
afterAll(async () => {
  await server?.close();
});

describeBlobStoreContract('s3', async () => {
  const bucket = await server.createBucket();
  return { store: createS3BlobStore(server.storeOptions(bucket, { prefix: 'gatehouse/blobs' })), cleanup: async () => {} };
});

/** The requests of one kind that reached the server since `requests` was last cleared. */
const seen = (method: string, query: RegExp | null = null, path?: string) =>
  server.requests.filter((r) => r.method === method && (query === null || query.test(r.query)) && (path === undefined || r.path === path));

/** s3rver keeps multipart uploads in progress as folders here. */
const uploadFolders = async (bucket: string) => readdir(join(server.directory, bucket, '._S3rver_uploads')).catch(() => [] as string[]);

describe('S3 blob store on an S3 server', () => {
  let bucket = '';
  let store: BlobStore;
  beforeEach(async () => {
    bucket = await server.createBucket();
    // 5 MiB parts (S3's smallest) so a few MiB make a multipart upload.
    store = createS3BlobStore(server.storeOptions(bucket, { partSize: 5 * MiB, queueSize: 2 }));
    server.requests.length = 0;
  });

  it('round-trips 20 MiB as a multipart upload of 5 MiB parts', async () => {
    const size = 20 * MiB + 7;
    const source = generated(size);
    const info = await store.write('big/multi', source.body);
    expect(info.size).toBe(size);
    expect(seen('POST', /(^|&)uploads(=|&|$)/)).toHaveLength(1); // CreateMultipartUpload
    expect(
      seen('PUT', /partNumber=/)
        .map((r) => r.query.match(/partNumber=(\d+)/)?.[1])
        .sort(),
    ).toEqual(['1', '2', '3', '4', '5']);
    expect(seen('POST', /uploadId=/)).toHaveLength(1); // CompleteMultipartUpload
    expect(await store.stat('big/multi')).toEqual(info);
    const back = await readAll(store, 'big/multi');
    expect({ length: back?.length, sha256: sha256(back ?? Buffer.alloc(0)) }).toEqual({ length: size, sha256: source.digest() });
    expect(await server.listMultipartUploads(bucket)).toEqual([]);
  });

  it('sends a body that fits one part as a single PutObject', async () => {
    await store.write('small', chunks(Buffer.alloc(MiB, 1)));
    expect(seen('PUT', /^(x-id=PutObject)?$/, `/${bucket}/small`)).toHaveLength(1);
    expect(seen('POST')).toEqual([]);
  });

  it('an over-limit write aborts its multipart upload: no object, no upload in progress', async () => {
    await store.write('keep', chunks(Buffer.from('previous')));
    const error = await store.write('keep', filled(40 * MiB, 1, 256 * 1024), { maxBytes: 12 * MiB }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('PAYLOAD_TOO_LARGE');
    // It did get as far as a multipart upload with parts, then aborted it.
    expect(seen('POST', /(^|&)uploads(=|&|$)/)).toHaveLength(1);
    expect(seen('PUT', /partNumber=/).length).toBeGreaterThanOrEqual(1);
    expect(seen('DELETE', /uploadId=/).length).toBeGreaterThanOrEqual(1);
    expect(seen('POST', /uploadId=/)).toEqual([]); // never completed
    expect(await server.listMultipartUploads(bucket)).toEqual([]);
    expect(await uploadFolders(bucket)).toEqual([]);
    expect((await readAll(store, 'keep'))?.toString()).toBe('previous');
    expect(await listKeys(store, '')).toEqual(['keep']);
  });

  it('an over-limit write with no previous version leaves nothing at all', async () => {
    await expect(store.write('fresh', filled(30 * MiB, 2, MiB), { maxBytes: 11 * MiB })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await store.stat('fresh')).toBeNull();
    expect(await listKeys(store, '')).toEqual([]);
    expect(await server.listMultipartUploads(bucket)).toEqual([]);
  });

  it('a source failing mid-way through a multipart upload rejects with its error and leaves nothing', async () => {
    const boom = new Error('client went away');
    await expect(store.write('f/x', failing(13 * MiB, boom))).rejects.toBe(boom);
    expect(seen('POST', /(^|&)uploads(=|&|$)/)).toHaveLength(1);
    expect(seen('PUT', /partNumber=/).length).toBeGreaterThanOrEqual(2);
    expect(await store.stat('f/x')).toBeNull();
    expect(await listKeys(store, '')).toEqual([]);
    expect(await server.listMultipartUploads(bucket)).toEqual([]);
    expect(await uploadFolders(bucket)).toEqual([]);
  });

  it('a Node stream destroyed mid-way through a multipart upload leaves nothing', async () => {
    const stream = new Readable({ read() {} });
    const writing = store.write('g', stream);
    for (let i = 0; i < 7; i++) stream.push(Buffer.alloc(MiB, i));
    setTimeout(() => stream.destroy(new Error('aborted by the client')), 50);
    await expect(writing).rejects.toThrow('aborted by the client');
    expect(await store.stat('g')).toBeNull();
    expect(await server.listMultipartUploads(bucket)).toEqual([]);
  });

  it('a failing UploadPart fails the write with a plain Error, aborts the upload and keeps the previous version', async () => {
    await store.write('k', chunks(Buffer.from('previous')));
    server.failRequests({ method: 'PUT', query: /partNumber=2(&|$)/ }, 3);
    const error = await store.write('k', filled(12 * MiB, 1, MiB)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(DomainError);
    expect((error as Error).message).toMatch(new RegExp(`^S3 upload of ${bucket}/k failed \\(InternalError, HTTP 500\\)`));
    expect(seen('DELETE', /uploadId=/).length).toBeGreaterThanOrEqual(1);
    expect(await server.listMultipartUploads(bucket)).toEqual([]);
    expect((await readAll(store, 'k'))?.toString()).toBe('previous');
  });

  it('a failing CompleteMultipartUpload fails the write and aborts the upload', async () => {
    server.failRequests({ method: 'POST', query: /uploadId=/ }, 3);
    await expect(store.write('k', filled(11 * MiB, 1, MiB))).rejects.toThrow(/InternalError, HTTP 500/);
    expect(await server.listMultipartUploads(bucket)).toEqual([]);
    expect(await store.stat('k')).toBeNull();
  });

  it("aborts the upload itself when lib-storage's abort fails, and still throws the write's own error", async () => {
    server.failRequests({ method: 'DELETE', query: /uploadId=/ }, 3); // every attempt of lib-storage's abort
    await expect(store.write('k', filled(30 * MiB, 1, MiB), { maxBytes: 11 * MiB })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(seen('DELETE', /uploadId=/).map((r) => r.status)).toEqual([500, 500, 500, 204]);
    expect(await server.listMultipartUploads(bucket)).toEqual([]);
  });

  it('a failing PutObject fails the write with a plain Error and stores nothing', async () => {
    server.failRequests({ method: 'PUT', path: `/${bucket}/k` }, 3, 'SlowDown');
    await expect(store.write('k', chunks(Buffer.from('x')))).rejects.toThrow(new RegExp(`^S3 upload of ${bucket}/k failed \\(SlowDown, HTTP 503\\)`));
    expect(await store.stat('k')).toBeNull();
  });

  it('read, stat, list and delete report S3 failures as plain Errors naming the object', async () => {
    await store.write('k', chunks(Buffer.from('x')));
    server.failRequests({ method: 'GET', path: `/${bucket}/k` }, 3);
    await expect(store.read('k')).rejects.toThrow(new RegExp(`^S3 GetObject ${bucket}/k failed \\(InternalError, HTTP 500\\)`));
    server.failRequests({ method: 'HEAD', path: `/${bucket}/k` }, 3, 'AccessDenied');
    await expect(store.stat('k')).rejects.toThrow(new RegExp(`^S3 HeadObject ${bucket}/k failed \\(.*HTTP 403\\)`));
    server.failRequests({ method: 'GET', query: /list-type=2/ }, 3);
    await expect(listKeys(store, '')).rejects.toThrow(/^S3 ListObjectsV2 .* failed \(InternalError, HTTP 500\)/);
    server.failRequests({ method: 'DELETE', path: `/${bucket}/k` }, 3);
    await expect(store.delete('k')).rejects.toThrow(/^S3 DeleteObject .* failed/);
    expect((await readAll(store, 'k'))?.toString()).toBe('x');
  });

  it('a transient S3 error is retried by the SDK and goes unnoticed', async () => {
    server.failRequests({ method: 'PUT', query: /partNumber=1(&|$)/ }, 1, 'SlowDown');
    const info = await store.write('k', filled(6 * MiB, 3, MiB));
    expect(info.size).toBe(6 * MiB);
    expect(seen('PUT', /partNumber=1(&|$)/).map((r) => r.status)).toEqual([503, 200]);
  });

  it('a range read is served by S3: only the range crosses the wire', async () => {
    const big = randomBytes(16 * MiB);
    await store.write('ranged', chunks(big.subarray(0, 8 * MiB), big.subarray(8 * MiB)));
    server.requests.length = 0;
    const start = 5 * MiB + 3;
    const end = start + 99;
    expectBytes(await readAll(store, 'ranged', { start, end }), big.subarray(start, end + 1));
    const gets = seen('GET', null, `/${bucket}/ranged`);
    expect(gets).toHaveLength(1);
    expect(gets[0]).toMatchObject({ range: `bytes=${start}-${end}`, status: 206, contentLength: 100 });

    // The clamped and the unsatisfiable ends go to S3 as asked, too.
    server.requests.length = 0;
    expectBytes(await readAll(store, 'ranged', { start: 16 * MiB - 2, end: 20 * MiB }), big.subarray(16 * MiB - 2));
    expect(await readAll(store, 'ranged', { start: 16 * MiB, end: 16 * MiB })).toEqual(Buffer.alloc(0));
    expect(seen('GET').map((r) => [r.range, r.status, r.contentLength])).toEqual([
      [`bytes=${16 * MiB - 2}-${20 * MiB}`, 206, 2],
      [`bytes=${16 * MiB}-${16 * MiB}`, 416, undefined],
    ]);
  });

  it('a whole read sends no Range', async () => {
    await store.write('whole', chunks(Buffer.from('abc')));
    server.requests.length = 0;
    expect((await readAll(store, 'whole'))?.toString()).toBe('abc');
    expect(seen('GET')).toMatchObject([{ range: undefined, status: 200 }]);
  });

  it('ping fails for a missing bucket, naming it', async () => {
    const missing = createS3BlobStore(server.storeOptions('no-such-bucket-here'));
    await expect(missing.ping()).rejects.toThrow(/"no-such-bucket-here" does not exist/);
    await store.ping();
  });

  it('ping fails for an unreachable endpoint with a clear message', async () => {
    const port = await closedPort();
    const unreachable = createS3BlobStore({ ...server.storeOptions(bucket), endpoint: `http://127.0.0.1:${port}` });
    const error = await unreachable.ping().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(`S3 HeadBucket on bucket "${bucket}": cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`);
    // Other operations say the same, as plain Errors.
    await expect(unreachable.stat('k')).rejects.toThrow(`S3 HeadObject ${bucket}/k: cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`);
    await expect(unreachable.write('k', chunks(Buffer.from('x')))).rejects.toThrow(/cannot reach/);
  });

  it('the factory checks its options and touches no network', async () => {
    const port = await closedPort();
    expect(() => createS3BlobStore({ ...server.storeOptions(bucket), endpoint: `http://127.0.0.1:${port}` })).not.toThrow();
    expect(() => createS3BlobStore({ bucket: '' })).toThrow(/bucket/);
    expect(() => createS3BlobStore({ bucket: 'b', accessKeyId: 'only-the-id' })).toThrow(/both/);
    expect(() => createS3BlobStore({ bucket: 'b', endpoint: 'not a url' })).toThrow(/endpoint/);
    expect(() => createS3BlobStore({ bucket: 'b', partSize: MiB })).toThrow(/partSize/);
    expect(() => createS3BlobStore({ bucket: 'b', queueSize: 0 })).toThrow(/queueSize/);
    for (const prefix of ['/abs', 'a//b', '../up', 'a/./b', 'with space']) expect(() => createS3BlobStore({ bucket: 'b', prefix })).toThrow(/prefix/);
    expect(server.requests).toEqual([]);
  });

  it('keeps objects under its prefix, apart from other prefixes in the bucket', async () => {
    const a = createS3BlobStore(server.storeOptions(bucket, { prefix: 'tenant-a' }));
    const b = createS3BlobStore(server.storeOptions(bucket, { prefix: 'tenant-b/' }));
    await a.write('files/one', chunks(Buffer.from('a1')));
    await b.write('files/one', chunks(Buffer.from('b1')));
    await store.write('root', chunks(Buffer.from('r')));
    const raw = await server.client.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect((raw.Contents ?? []).map((o) => o.Key).sort()).toEqual(['root', 'tenant-a/files/one', 'tenant-b/files/one']);
    expect(await listKeys(a, '')).toEqual(['files/one']);
    expect((await readAll(b, 'files/one'))?.toString()).toBe('b1');
    await a.delete('files/one');
    expect(await b.stat('files/one')).not.toBeNull();
    // The unprefixed store sees the bucket as it is.
    expect(await listKeys(store, '')).toEqual(['root', 'tenant-b/files/one']);
  });

  it('lists nothing no key could name, put there by other tools', async () => {
    await store.write('real/one', chunks(Buffer.from('1')));
    // (No 'a//b': s3rver cannot store a key with an empty segment, though S3 can.)
    for (const Key of ['real/UPPER', 'real/with space', 'real/.hidden', 'real/a.b', 'real/ü']) {
      await server.client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: 'x' }));
    }
    expect(await listKeys(store, '')).toEqual(['real/one']);
    expect(await listKeys(store, 'real/')).toEqual(['real/one']);
  });

  it('lists past one page of ListObjectsV2 (1000 keys)', async () => {
    const keys = Array.from({ length: 1005 }, (_, i) => `p/k${String(i).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((k) => server.client.send(new PutObjectCommand({ Bucket: bucket, Key: k, Body: 'x' }))));
    }
    server.requests.length = 0;
    expect(await listKeys(store, 'p/')).toEqual(keys);
    expect(seen('GET', /list-type=2/).length).toBe(2);
  }, 120_000);

  it('turns S3 refusals into plain Errors that carry no credentials', async () => {
    await store.write('k', chunks(Buffer.from('x')));
    // An unknown key id (s3rver does not verify signatures, so a wrong secret alone passes there).
    // S3's InvalidAccessKeyId answer carries the key id, which the SDK copies onto its error.
    const bad = createS3BlobStore({ ...server.storeOptions(bucket), accessKeyId: 'AKIDUNKNOWN123', secretAccessKey: 'a-secret-0987654321' });
    const attempts: Array<[string, () => Promise<unknown>]> = [
      ['stat', () => bad.stat('k')],
      ['read', () => bad.read('k')],
      ['write', () => bad.write('k2', chunks(Buffer.from('y')))],
      ['list', () => listKeys(bad, '')],
      ['delete', () => bad.delete('k')],
      ['ping', () => bad.ping()],
    ];
    for (const [name, attempt] of attempts) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(Error);
      expect(error, name).not.toBeInstanceOf(DomainError);
      const text = `${(error as Error).message} ${JSON.stringify(error)} ${(error as Error).cause === undefined ? '' : String((error as Error).cause)}`;
      expect(text, name).toContain(bucket);
      expect(text, name).not.toMatch(/a-secret|AKIDUNKNOWN123/);
    }
    expect((await bad.stat('k').catch((e: Error) => e.message)) as string).toMatch(/HTTP 403/);
    expect((await readAll(store, 'k'))?.toString()).toBe('x');
  });
});

describe('S3 blob store memory', () => {
  // As for the local store: a 256 MiB write and read-back must not grow the process by anything
  // near their size. s3rver runs in this process too, so its buffers count; the margin is still
  // half the object, which a store gathering the bytes would overshoot.
  it('stays flat while writing and reading back 256 MiB', async () => {
    const bucket = await server.createBucket();
    const store = createS3BlobStore(server.storeOptions(bucket));
    const total = 256;
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
    // Warm up the code paths (a multipart write and a read) so their one-off allocations are not counted.
    await store.write('warm', chunks(Buffer.alloc(20 * MiB)));
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
    expect(growth, `RSS grew by ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(128 * MiB);
  }, 180_000);
});
