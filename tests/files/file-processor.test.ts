// createFileProcessor against the real SQLite store and local blob store of the test harness,
// with fakes wrapped around them where a test needs a failure, a stall or a count. The test
// clock drives leases and backoff; only heartbeats tick in real time.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/application/deps.js';
import type { BlobStore } from '../../src/application/ports/blob-store.js';
import type { Store } from '../../src/application/ports/store.js';
import { createFileProcessor, STORAGE_FAILED_MESSAGE, type FileProcessor } from '../../src/application/files/file-processor.js';
import { sweepOrphanBlobs } from '../../src/application/files/orphan-sweep.js';
import { decryptBuffer } from '../../src/file-format/encrypted-file.js';
import { createCryptoPool } from '../../src/adapters/crypto/crypto-pool.js';
import { JOB_MAX_ATTEMPTS, retryDelay } from '../../src/domain/files.js';
import { upload } from '../support/files.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { SYSTEM } from '../../src/application/events/actor.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
let auth: string;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false });
  auth = `Bearer ${app.credentials.admin_api_key}`;
});
afterEach(() => t.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (in real time) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

interface Uploaded {
  id: string;
  content: Buffer;
}

/** POST /files (a new file), PENDING. */
async function post(name: string, content: Buffer, encrypted = false): Promise<Uploaded> {
  const res = await upload(t, 'POST', '/api/admin/files', auth, { name, is_public: 'true', store_encrypted: String(encrypted) }, { content });
  if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${res.body}`);
  return { id: res.json<{ id: string }>().id, content };
}

/** PUT /files/by-name/{name}: creates or replaces. */
async function put(name: string, content: Buffer, encrypted = false): Promise<Uploaded> {
  const res = await upload(t, 'PUT', `/api/admin/files/by-name/${encodeURIComponent(name)}`, auth, { is_public: 'true', store_encrypted: String(encrypted) }, { content });
  if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${res.body}`);
  return { id: res.json<{ id: string }>().id, content };
}

async function fileView(id: string): Promise<Record<string, unknown>> {
  return (await t.inject({ method: 'GET', url: `/api/admin/files/${id}`, headers: { authorization: auth } })).json();
}

async function download(id: string) {
  return t.inject({ method: 'GET', url: `/api/admin/files/${id}/download`, headers: { authorization: auth } });
}

async function record(id: string) {
  const file = await t.store.findFile(app.id, id);
  if (file === null) throw new Error(`no file ${id}`);
  return file;
}

async function blobKeys(prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of t.deps.blobs.list(prefix)) keys.push(blob.key);
  return keys.sort();
}

async function blobBytes(key: string): Promise<Buffer> {
  const stream = await t.deps.blobs.read(key);
  if (stream === null) throw new Error(`no blob ${key}`);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface JobRow {
  id: string;
  file_id: string;
  staging_key: string;
  output_key: string;
  attempts: number;
  run_after: number;
  lease_until: number | null;
  lease_owner: string | null;
}

/** The jobs table as it stands (the port has no listing of it). */
function jobRows(): JobRow[] {
  const db = new Database(t.dbPath, { readonly: true });
  try {
    return db.prepare('select id, file_id, staging_key, output_key, attempts, run_after, lease_until, lease_owner from jobs order by created_at, rowid').all() as JobRow[];
  } finally {
    db.close();
  }
}

function onlyJob(): JobRow {
  const rows = jobRows();
  expect(rows).toHaveLength(1);
  return rows[0] as JobRow;
}

const cryptoPool = createCryptoPool();

function processor(deps: Deps, workerId: string, options: { concurrency?: number; errors?: unknown[] } = {}): FileProcessor {
  const errors = options.errors;
  return createFileProcessor(deps, {
    workerId,
    concurrency: options.concurrency ?? 1,
    pollMs: 20,
    sealer: cryptoPool.sealer,
    meter: cryptoPool.meter,
    ...(errors ? { onError: (e: unknown) => void errors.push(e) } : {}),
  });
}

/** The harness's deps with some ports swapped (the HTTP side keeps using the originals). */
const withPorts = (overrides: { blobs?: BlobStore; store?: Store; jobLeaseMs?: number }): Deps => ({
  ...t.deps,
  blobs: overrides.blobs ?? t.deps.blobs,
  store: overrides.store ?? t.deps.store,
  files: { ...t.deps.files, jobLeaseMs: overrides.jobLeaseMs ?? t.deps.files.jobLeaseMs },
});

/** A blob store whose writes of processed contents (`files/…`) throw the first `times` times. */
function failingWrites(times: number): BlobStore & { failures: number } {
  const inner = t.deps.blobs;
  const fake = {
    ...inner,
    failures: 0,
    async write(key: string, body: NodeJS.ReadableStream | AsyncIterable<Uint8Array>, options?: { maxBytes?: number }) {
      if (key.startsWith('files/') && fake.failures < times) {
        fake.failures += 1;
        // As the file system words it: a server path, which is not the client's business.
        throw new Error(`ENOSPC: no space left on device, write '/srv/gatehouse/data/blobs/${key}'`);
      }
      return inner.write(key, body, options);
    },
  };
  return fake;
}

/**
 * A blob store whose writes of processed contents stall before their first byte until released:
 * `entered` resolves when one stalls, `settled` once every stalled write has finished (either way).
 */
function stallingWrites() {
  const inner = t.deps.blobs;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const enteredP = new Promise<void>((r) => (entered = r));
  const writes: Array<Promise<unknown>> = [];
  const blobs: BlobStore = {
    ...inner,
    write(key, body, options) {
      if (!key.startsWith('files/')) return inner.write(key, body, options);
      entered();
      // Like a slow storage still reading: a body destroyed meanwhile ends the wait (and the write).
      const closed = new Promise<void>((r) => (body as NodeJS.EventEmitter).once('close', () => r()));
      async function* gated() {
        await Promise.race([gate, closed]);
        for await (const chunk of body as AsyncIterable<Uint8Array>) yield chunk;
      }
      const w = inner.write(key, gated(), options);
      writes.push(w.catch(() => undefined));
      return w;
    },
  };
  return { blobs, entered: enteredP, release, settled: () => Promise.all(writes) };
}

/** The store with completeJob calls recorded (who, which job, and what came back). */
function countingStore() {
  const calls: Array<{ jobId: string; workerId: string; result: string[] | 'lost' }> = [];
  const store: Store = {
    ...t.store,
    async completeJob(jobId, workerId, contents, now) {
      const result = await t.store.completeJob(jobId, workerId, contents, now, SYSTEM);
      calls.push({ jobId, workerId, result });
      return result;
    },
  };
  return { store, calls };
}

/** Runs one attempt per retry, moving the test clock past each backoff, until the job is gone. */
async function drainThroughRetries(p: FileProcessor): Promise<number> {
  let attempts = 0;
  for (;;) {
    expect(await p.drain()).toBe(1);
    attempts += 1;
    const rows = jobRows();
    if (rows.length === 0) return attempts;
    const job = rows[0] as JobRow;
    expect(job).toMatchObject({ attempts, lease_owner: null, lease_until: null, run_after: t.clock.now() + retryDelay(attempts) });
    // Not claimable before its backoff runs out.
    t.clock.advance(retryDelay(attempts) - 1);
    expect(await p.drain()).toBe(0);
    t.clock.advance(1);
  }
}

describe('a job that succeeds', () => {
  it('stores plain and encrypted contents with their sizes and hashes, COMPLETED, and deletes the staging blob', async () => {
    const plain = await post('plain.bin', randomBytes(300_000));
    const secret = await post('secret.bin', randomBytes(200_001), true);
    expect(await blobKeys('staging/')).toHaveLength(2);
    expect(jobRows()).toHaveLength(2);

    expect(await processor(t.deps, 'w1').drain()).toBe(2);

    const p = await record(plain.id);
    expect(p.state).toMatchObject({ processingStatus: 'COMPLETED', pendingJobId: null, processingError: null });
    expect(p.state.stored).toMatchObject({ sizeBytes: 300_000, sha256: sha(plain.content), storedSizeBytes: 300_000, storedSha256: sha(plain.content), encrypted: false });
    expect((await blobBytes(p.state.stored!.blobKey)).equals(plain.content)).toBe(true);

    const s = await record(secret.id);
    expect(s.state.processingStatus).toBe('COMPLETED');
    expect(s.state.stored).toMatchObject({ sizeBytes: 200_001, sha256: sha(secret.content), encrypted: true });
    const stored = await blobBytes(s.state.stored!.blobKey);
    expect(stored.length).toBe(s.state.stored!.storedSizeBytes);
    expect(sha(stored)).toBe(s.state.stored!.storedSha256);
    expect(decryptBuffer(Buffer.from(app.credentials.files_encryption_key, 'base64'), stored).equals(secret.content)).toBe(true);

    expect(await blobKeys('staging/')).toEqual([]);
    expect(await blobKeys()).toEqual([p.state.stored!.blobKey, s.state.stored!.blobKey].sort());
    expect(jobRows()).toEqual([]);
    expect(await fileView(plain.id)).toMatchObject({ processing_status: 'COMPLETED', storage_status: 'STORED', size_bytes: 300_000, sha256: sha(plain.content) });
  });
});

describe('retries', () => {
  it(`a missing staging blob is retried ${JOB_MAX_ATTEMPTS} times with backoff, then FAILED; the previous contents stay served`, async () => {
    const v1 = await put('game.zip', randomBytes(50_000));
    await t.processor.drain();
    const v1Key = (await record(v1.id)).state.stored!.blobKey;
    const v2 = await put('game.zip', randomBytes(60_000));
    expect(v2.id).toBe(v1.id);
    await t.deps.blobs.delete(onlyJob().staging_key);

    const errors: unknown[] = [];
    expect(await drainThroughRetries(processor(t.deps, 'w1', { errors }))).toBe(JOB_MAX_ATTEMPTS);
    expect(errors).toHaveLength(JOB_MAX_ATTEMPTS);

    expect(await fileView(v1.id)).toMatchObject({
      processing_status: 'FAILED',
      storage_status: 'STORED',
      processing_error: expect.stringMatching(/missing/),
      size_bytes: 50_000,
      sha256: sha(v1.content),
    });
    const res = await download(v1.id);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(v1.content)).toBe(true);
    expect(jobRows()).toEqual([]);
    expect(await blobKeys()).toEqual([v1Key]);
  });

  it('a failing blob write is retried after its backoff (test clock), then succeeds', async () => {
    const f = await post('retry.bin', randomBytes(70_000), true);
    const blobs = failingWrites(2);
    const errors: unknown[] = [];
    const p = processor(withPorts({ blobs }), 'w1', { errors });

    const claimedAt = t.clock.now();
    expect(await p.drain()).toBe(1);
    expect(onlyJob()).toMatchObject({ attempts: 1, lease_owner: null, run_after: claimedAt + retryDelay(1) });
    expect(retryDelay(1)).toBeGreaterThan(0);
    expect((await record(f.id)).state.processingStatus).toBe('PENDING');
    expect(await p.drain()).toBe(0); // not yet due

    t.clock.advance(retryDelay(1));
    expect(await p.drain()).toBe(1);
    expect(onlyJob()).toMatchObject({ attempts: 2, run_after: t.clock.now() + retryDelay(2) });
    expect(retryDelay(2)).toBeGreaterThan(retryDelay(1));

    t.clock.advance(retryDelay(2));
    expect(await p.drain()).toBe(1);
    expect(blobs.failures).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual([expect.stringContaining('ENOSPC'), expect.stringContaining('ENOSPC')]);
    const done = await record(f.id);
    expect(done.state).toMatchObject({ processingStatus: 'COMPLETED', processingError: null });
    expect(done.state.stored).toMatchObject({ sha256: sha(f.content), sizeBytes: 70_000, encrypted: true });
    expect(jobRows()).toEqual([]);
    expect(await blobKeys()).toEqual([done.state.stored!.blobKey]);
  });

  it('a meter that fails midway (its digest worker died) fails the attempt; the retry completes', async () => {
    const f = await post('meter.bin', randomBytes(300_000), true);
    let broken = 0;
    // The first meter errors on its first chunk, as the off-thread meter does when its worker dies.
    const meter = () => {
      const m = cryptoPool.meter();
      if (broken++ === 0) m.stream.once('data', () => m.stream.destroy(new Error('the digest worker stopped (exit code 1)')));
      return m;
    };
    const errors: unknown[] = [];
    const p = createFileProcessor(t.deps, { workerId: 'w1', concurrency: 1, pollMs: 20, sealer: cryptoPool.sealer, meter, onError: (e) => void errors.push(e) });
    expect(await p.drain()).toBe(1);
    expect(errors.map((e) => (e as Error).message)).toEqual(['the digest worker stopped (exit code 1)']);
    expect(onlyJob()).toMatchObject({ attempts: 1, lease_owner: null });
    expect(await blobKeys('files/')).toEqual([]);

    t.clock.advance(retryDelay(1));
    expect(await p.drain()).toBe(1);
    expect((await record(f.id)).state.stored).toMatchObject({ sha256: sha(f.content), sizeBytes: 300_000, encrypted: true });
  });

  it('a replacement that fails for good leaves the previous contents downloadable and the status FAILED', async () => {
    const v1 = await put('app.exe', randomBytes(40_000), true);
    await t.processor.drain();
    const before = (await record(v1.id)).state.stored!;
    await put('app.exe', randomBytes(45_000), true);
    expect((await download(v1.id)).statusCode).toBe(200); // served while the replacement is PENDING

    const blobs = failingWrites(Number.POSITIVE_INFINITY);
    const errors: unknown[] = [];
    expect(await drainThroughRetries(processor(withPorts({ blobs }), 'w1', { errors }))).toBe(JOB_MAX_ATTEMPTS);
    expect(blobs.failures).toBe(JOB_MAX_ATTEMPTS);
    // The detail goes to the log (onError); the file carries a stable message without it.
    expect(errors.map((e) => (e as Error).message)).toEqual(Array.from({ length: JOB_MAX_ATTEMPTS }, () => expect.stringContaining('ENOSPC')));

    const after = await record(v1.id);
    expect(after.state).toMatchObject({ processingStatus: 'FAILED', processingError: STORAGE_FAILED_MESSAGE, pendingJobId: null });
    expect(after.state.processingError).not.toMatch(/ENOSPC|\/srv|blobs/);
    expect(after.state.stored).toEqual(before);
    const res = await download(v1.id);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(`"${before.storedSha256}"`);
    expect(decryptBuffer(Buffer.from(app.credentials.files_encryption_key, 'base64'), res.rawPayload).equals(v1.content)).toBe(true);
    expect(await fileView(v1.id)).toMatchObject({ processing_status: 'FAILED', storage_status: 'STORED', processing_error: STORAGE_FAILED_MESSAGE });
    expect(await blobKeys()).toEqual([before.blobKey]);
  });
});

describe('leases', () => {
  it('a worker whose heartbeat finds the job taken over stops and does not complete it', async () => {
    const f = await post('lease.bin', randomBytes(100_000));
    const stall = stallingWrites();
    const { store, calls } = countingStore();
    const failJobs: string[] = [];
    const storeA: Store = {
      ...store,
      async failJob(jobId, workerId, message, now, retryInMs) {
        failJobs.push(workerId);
        return t.store.failJob(jobId, workerId, message, now, retryInMs, SYSTEM);
      },
    };
    // A short lease: heartbeats every 100 ms of real time, renewing against the test clock.
    const lease = 300;
    const a = processor(withPorts({ blobs: stall.blobs, store: storeA, jobLeaseMs: lease }), 'worker-a');
    const running = a.drain();
    await stall.entered;
    // Heartbeats renew the lease: past the first one, the job is still held.
    t.clock.advance(lease - 1);
    await sleep(250);
    t.clock.advance(2);
    expect(await t.store.claimJob('worker-b', t.clock.now(), 30_000)).toBeNull();
    // Past the renewed one (as if A had stalled), B takes the job over; A's next heartbeat finds
    // it gone. (No heartbeat can run between the advance and the claim: both are synchronous.)
    t.clock.advance(lease);
    const taken = await t.store.claimJob('worker-b', t.clock.now(), 30_000);
    expect(taken).toMatchObject({ fileId: f.id, leaseOwner: 'worker-b' });
    expect(await running).toBe(1);
    stall.release();
    await stall.settled();

    expect(calls).toEqual([]);
    expect(failJobs).toEqual([]);
    expect((await record(f.id)).state.processingStatus).toBe('PENDING');
    expect(onlyJob()).toMatchObject({ lease_owner: 'worker-b' });
    expect(await blobKeys('files/')).toEqual([]); // A's aborted write left nothing

    // B dies too; once its lease lapses, a third worker completes the job.
    t.clock.advance(30_001);
    expect(await processor(t.deps, 'worker-c').drain()).toBe(1);
    const done = await record(f.id);
    expect(done.state).toMatchObject({ processingStatus: 'COMPLETED' });
    expect(done.state.stored?.sha256).toBe(sha(f.content));
    expect(await blobKeys()).toEqual([done.state.stored!.blobKey]);
  });

  for (const encrypted of [false, true]) {
    it(`a worker that finishes after losing its lease settles nothing, and the file serves the winner's bytes (${encrypted ? 'encrypted' : 'plain'})`, async () => {
      const f = await post('late.bin', randomBytes(150_000), encrypted);
      const stall = stallingWrites();
      const { store, calls } = countingStore();
      // The default lease (30 s): no heartbeat fires during this test, so A never notices.
      const a = processor(withPorts({ blobs: stall.blobs, store }), 'worker-a');
      const running = a.drain();
      await stall.entered;
      t.clock.advance(t.deps.files.jobLeaseMs + 1);
      expect(await processor(withPorts({ store }), 'worker-b').drain()).toBe(1);
      stall.release();
      expect(await running).toBe(1);

      expect(calls.map((c) => [c.workerId, c.result === 'lost' ? 'lost' : 'done'])).toEqual([
        ['worker-b', 'done'],
        ['worker-a', 'lost'],
      ]);
      const done = await record(f.id);
      expect(done.state.processingStatus).toBe('COMPLETED');
      const stored = done.state.stored!;
      expect(stored.sha256).toBe(sha(f.content));
      // What is served is what was recorded: the ETag is the hash of the bytes downloaded.
      const res = await download(f.id);
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe(`"${stored.storedSha256}"`);
      expect(sha(res.rawPayload)).toBe(stored.storedSha256);
      expect(res.rawPayload.length).toBe(stored.storedSizeBytes);
      // And the loser left no blob behind.
      expect(await blobKeys()).toEqual([stored.blobKey]);
    });
  }
});

describe('concurrency', () => {
  it('two processors draining one queue of 10 jobs process each exactly once', async () => {
    const uploaded: Uploaded[] = [];
    for (let i = 0; i < 10; i++) uploaded.push(await post(`build-${i}.bin`, randomBytes(64 * 1024 + i * 7919), i % 2 === 1));
    const { store, calls } = countingStore();
    const writes: Array<{ key: string; worker: string }> = [];
    const counting = (worker: string): BlobStore => ({
      ...t.deps.blobs,
      write(key, body, options) {
        if (key.startsWith('files/')) writes.push({ key, worker });
        return t.deps.blobs.write(key, body, options);
      },
    });
    const p1 = processor(withPorts({ store, blobs: counting('w1') }), 'w1', { concurrency: 2 });
    const p2 = processor(withPorts({ store, blobs: counting('w2') }), 'w2', { concurrency: 2 });
    p1.start();
    p2.start();
    await until(() => jobRows().length === 0, 'the queue to empty');
    await Promise.all([p1.stop(), p2.stop()]);

    expect(calls).toHaveLength(10);
    expect(calls.every((c) => c.result !== 'lost')).toBe(true);
    expect(new Set(calls.map((c) => c.jobId)).size).toBe(10);
    // Each job's contents were produced once, by the worker that completed it.
    expect(writes).toHaveLength(10);
    expect(new Set(writes.map((w) => w.key)).size).toBe(10);
    const storedKeys: string[] = [];
    for (const u of uploaded) {
      const file = await record(u.id);
      expect(file.state.processingStatus).toBe('COMPLETED');
      expect(file.state.stored?.sha256).toBe(sha(u.content));
      storedKeys.push(file.state.stored!.blobKey);
    }
    expect(await blobKeys()).toEqual(storedKeys.sort());
  });
});

describe('superseded uploads', () => {
  it('replacing a file twice before processing stores the last upload, and only it', async () => {
    const v1 = await put('game.zip', randomBytes(10_000));
    await t.processor.drain();
    await put('game.zip', randomBytes(20_000));
    const v3 = await put('game.zip', randomBytes(30_000), true);
    expect(jobRows()).toHaveLength(1);
    expect(await t.processor.drain()).toBe(1);
    const file = await record(v1.id);
    expect(file.state.processingStatus).toBe('COMPLETED');
    expect(file.state.stored).toMatchObject({ sha256: sha(v3.content), sizeBytes: 30_000, encrypted: true });
    expect(await blobKeys()).toEqual([file.state.stored!.blobKey]);
  });

  it('a new file replaced twice before its first processing stores the last upload, and only it', async () => {
    const v1 = await put('fresh.zip', randomBytes(10_000));
    await put('fresh.zip', randomBytes(20_000));
    const v3 = await put('fresh.zip', randomBytes(30_000));
    expect(await t.processor.drain()).toBe(1);
    const file = await record(v1.id);
    expect(file.state.stored?.sha256).toBe(sha(v3.content));
    expect(await blobKeys()).toEqual([file.state.stored!.blobKey]);
  });

  it('an upload superseded while it is being processed is discarded, and leaves no blob behind', async () => {
    const v1 = await put('busy.zip', randomBytes(80_000));
    const stall = stallingWrites();
    const { store, calls } = countingStore();
    const running = processor(withPorts({ blobs: stall.blobs, store }), 'w1').drain();
    await stall.entered;
    const v2 = await put('busy.zip', randomBytes(90_000));
    stall.release();
    // The superseded job settles nothing; the same drain then processes the new upload.
    expect(await running).toBe(2);
    expect(calls.map((c) => (c.result === 'lost' ? 'lost' : 'done'))).toEqual(['lost', 'done']);
    const file = await record(v1.id);
    expect(file.state.stored?.sha256).toBe(sha(v2.content));
    expect(await blobKeys()).toEqual([file.state.stored!.blobKey]);
  });
});

describe('orphan sweep', () => {
  it('removes unreferenced blobs past the grace period, and keeps stored, staged and young ones', async () => {
    const done = await post('kept.bin', randomBytes(1000));
    await t.processor.drain();
    const pending = await post('pending.bin', randomBytes(1000));
    const storedKey = (await record(done.id)).state.stored!.blobKey;
    const stagingKey = onlyJob().staging_key;
    expect((await record(pending.id)).state.pendingJobId).toBe(onlyJob().id);
    await t.deps.blobs.write('files/orphan/left-over', Readable.from([Buffer.from('crash leftover')]));
    await t.deps.blobs.write('staging/left-over', Readable.from([Buffer.from('crash leftover')]));

    // Young orphans are kept (they may be about to be referenced).
    expect(await sweepOrphanBlobs(t.deps, 60_000, Date.now())).toBe(0);
    expect(await blobKeys()).toHaveLength(4);

    expect(await sweepOrphanBlobs(t.deps, 0, Date.now() + 1)).toBe(2);
    expect(await blobKeys()).toEqual([storedKey, stagingKey].sort());

    // The pending job still runs from its staging blob.
    expect(await t.processor.drain()).toBe(1);
    expect((await record(pending.id)).state.stored?.sha256).toBeTruthy();
  });

  it('respects the grace period measured by the storage clock', async () => {
    await t.deps.blobs.write('files/orphan/x', Readable.from([Buffer.from('x')]));
    const writtenAt = (await t.deps.blobs.stat('files/orphan/x'))!.modifiedAt;
    expect(await sweepOrphanBlobs(t.deps, 10_000, writtenAt + 9_999)).toBe(0);
    expect(await blobKeys()).toEqual(['files/orphan/x']);
    expect(await sweepOrphanBlobs(t.deps, 10_000, writtenAt + 10_001)).toBe(1);
    expect(await blobKeys()).toEqual([]);
  });
});
