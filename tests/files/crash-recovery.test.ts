// Acceptance: background processing survives the server being killed. The compiled server runs
// as a child process on a fresh data folder; large uploads are accepted (PENDING) and the process
// is SIGKILLed over several rounds at points chosen by the state it is in, not by time: at once
// (jobs queued), once a job is claimed (mid-processing), once a write is in progress in .tmp.
// Sizes, contents and the file each later round replaces come from one seed.
// After a final restart every file must end COMPLETED with the uploaded bytes (or FAILED, which
// must be explained), every COMPLETED row must have its blob, and after an orphan sweep no blob
// may be left that no file refers to.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrphanBlobs } from '../../src/application/files/orphan-sweep.js';
import { createLocalBlobStore } from '../../src/adapters/blob/local-blob-store.js';
import { decryptBuffer } from '../../src/file-format/encrypted-file.js';
import { openSqliteStore } from '../../src/adapters/persistence/sqlite/sqlite-store.js';
import { seededRandom } from '../support/seeded-random.js';
import { buildServer } from '../support/server-process.js';

const run = promisify(execFile);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let outDir = '';
const MiB = 1024 * 1024;
const FILES_PER_ROUND = 8;
const ROUNDS = 3;

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const random = seededRandom('crash-recovery');

let dataDir = '';
let env: NodeJS.ProcessEnv = {};
let server: Server | null = null;
const log: string[] = [];
/** Output of every server started, for the count of failed attempts it logged. */
const outputs: string[][] = [];

interface Server {
  child: ChildProcess;
  base: string;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the compiled server on the data folder; resolves once it prints its address. */
function startServer(): Promise<Server> {
  const child = spawn(process.execPath, [join(outDir, 'src', 'main.js')], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  outputs.push(output);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  return new Promise((done, fail) => {
    // A bound for a slow start on a loaded machine, not a wait.
    const timer = setTimeout(() => fail(new Error(`server did not start:\n${output.join('')}`)), 60_000);
    child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      output.push(d.toString());
      const m = /Gatehouse listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        done({ child, base: m[1] as string, output, exited });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code ?? signal}) before listening:\n${output.join('')}`));
    });
  });
}

async function kill(s: Server): Promise<void> {
  s.child.kill('SIGKILL');
  const { signal } = await s.exited;
  expect(signal).toBe('SIGKILL');
}

interface Upload {
  name: string;
  encrypted: boolean;
  size: number;
  sha256: string;
  round: number;
}

/** What each file must end up holding: its last accepted upload. */
const expected = new Map<string, Upload>();

async function uploadFile(s: Server, auth: string, upload: Omit<Upload, 'sha256' | 'size'>, fileId: string | null, size: number): Promise<string> {
  const content = random.bytes(size);
  const form = new FormData();
  if (fileId === null) form.append('name', upload.name);
  form.append('is_public', 'false');
  form.append('store_encrypted', String(upload.encrypted));
  form.append('file', new Blob([content]), `${upload.name}.bin`);
  const url = fileId === null ? `${s.base}/api/admin/files` : `${s.base}/api/admin/files/by-name/${encodeURIComponent(upload.name)}`;
  const res = await fetch(url, { method: fileId === null ? 'POST' : 'PUT', headers: { authorization: auth }, body: form });
  const body = (await res.json()) as { id: string; processing_status: string };
  expect(res.status, JSON.stringify(body)).toBe(fileId === null ? 201 : 200);
  expect(body.processing_status).toBe('PENDING');
  expected.set(body.id, { ...upload, size, sha256: sha(content) });
  return body.id;
}

/** The queue and the files as the killed server left them (read-only, before any restart). */
function inspect(killedAt: number) {
  const db = new Database(join(dataDir, 'gatehouse.db'), { readonly: true, fileMustExist: true });
  try {
    const jobs = db.prepare('select lease_owner, lease_until, attempts from jobs').all() as Array<{ lease_owner: string | null; lease_until: number | null; attempts: number }>;
    const statuses = db.prepare('select processing_status as s, count(*) as n from files group by processing_status').all() as Array<{ s: string; n: number }>;
    const tmp = readdirSafe(join(dataDir, 'blobs', '.tmp'));
    return {
      jobs: jobs.length,
      // Claimed under a lease still running when the process died: being processed at the kill.
      inProgress: jobs.filter((j) => j.lease_owner !== null && (j.lease_until ?? 0) > killedAt).length,
      files: Object.fromEntries(statuses.map((r) => [r.s, r.n])),
      partialWrites: tmp.length,
    };
  } finally {
    db.close();
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

interface KillPoint {
  name: string;
  /** The server's state, read from its database and folder, has reached the point (`tmpBefore`: temp files earlier kills left). */
  reached(tmpBefore: Set<string>): boolean;
}

/** Queued jobs and leases as the running server has them (a read-only look at the WAL database). */
function queue(): { jobs: number; claimed: number } {
  const db = new Database(join(dataDir, 'gatehouse.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('select lease_owner, lease_until from jobs').all() as Array<{ lease_owner: string | null; lease_until: number | null }>;
    return { jobs: rows.length, claimed: rows.filter((j) => j.lease_owner !== null && (j.lease_until ?? 0) > Date.now()).length };
  } finally {
    db.close();
  }
}

const KILL_POINTS: KillPoint[] = [
  { name: 'all uploads accepted (jobs queued)', reached: () => true },
  { name: 'a job is claimed (processing under way)', reached: () => queue().claimed > 0 },
  { name: 'a write is in progress in .tmp', reached: (before) => readdirSafe(join(dataDir, 'blobs', '.tmp')).some((name) => !before.has(name)) },
];

/**
 * Polls until the point is reached; false if the queue emptied first (the round then kills an
 * idle server, which the outstanding-work assertion below accounts for).
 */
async function waitFor(point: KillPoint, tmpBefore: Set<string>): Promise<boolean> {
  for (;;) {
    if (point.reached(tmpBefore)) return true;
    if (queue().jobs === 0) return false;
    await sleep(10);
  }
}

/** Every file under the blob root as a key, `.tmp` aside. */
function blobFiles(root: string): string[] {
  const entries = readdirSync(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((key) => !key.startsWith('.tmp/'))
    .sort();
}

describe('crash recovery of file processing', () => {
  beforeAll(async () => {
    outDir = (await buildServer()).outDir;
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-crash-'));
    env = { ...process.env };
    for (const name of ['NODE_OPTIONS', 'DATABASE_URL', 'GATEHOUSE_MASTER_KEY', 'GATEHOUSE_BLOB_STORE', 'GATEHOUSE_TRUST_PROXY']) delete env[name];
    Object.assign(env, {
      GATEHOUSE_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      GATEHOUSE_JOB_LEASE_MS: '2000',
      GATEHOUSE_WORKERS: '2',
      LOG_LEVEL: 'warn',
      GATEHOUSE_MAX_UPLOAD_BYTES: String(64 * MiB),
    });
  }, 120_000);

  afterAll(async () => {
    if (server !== null && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (log.length > 0) console.log(`crash recovery:\n  ${log.join('\n  ')}`);
  });

  it('every file accepted before a SIGKILL ends COMPLETED with its bytes; no blob is lost or left over', async () => {
    const startedAt = Date.now();
    const { stdout } = await run(process.execPath, [join(outDir, 'src', 'cli.js'), 'owner', 'create', '--init', '--email', 'crash@example.com', '--password', 'crash-test-password-1'], {
      cwd: repo,
      env,
    });
    const { token } = JSON.parse(stdout) as { token: string };

    server = await startServer();
    const created = await fetch(`${server.base}/api/console/applications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Crash test', device_auth: false }),
    });
    expect(created.status).toBe(201);
    const { credentials } = (await created.json()) as { credentials: { admin_api_key: string; files_encryption_key: string } };
    const auth = `Bearer ${credentials.admin_api_key}`;
    const filesKey = Buffer.from(credentials.files_encryption_key, 'base64');

    let inProgressAtKills = 0;
    let outstandingAtKills = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      if (round > 1) server = await startServer();
      const s = server;
      const tmpBefore = new Set(readdirSafe(join(dataDir, 'blobs', '.tmp')));
      const uploads: Array<Promise<string>> = [];
      for (let i = 0; i < FILES_PER_ROUND; i++) {
        const upload = { name: `r${round}-f${i}`, encrypted: i % 2 === 1, round };
        uploads.push(uploadFile(s, auth, upload, null, 8 * MiB + random.int(24 * MiB + 1)));
      }
      // Later rounds also replace a file of an earlier round, which may still be PENDING.
      if (round > 1) {
        const [id, previous] = [...expected.entries()][random.int(expected.size)] as [string, Upload];
        uploads.push(uploadFile(s, auth, { name: previous.name, encrypted: !previous.encrypted, round }, id, 8 * MiB + random.int(8 * MiB)));
      }
      await Promise.all(uploads);
      const point = KILL_POINTS[(round - 1) % KILL_POINTS.length] as KillPoint;
      const reached = await waitFor(point, tmpBefore);
      const killedAt = Date.now();
      await kill(s);
      const state = inspect(killedAt);
      inProgressAtKills += state.inProgress;
      log.push(`round ${round}: ${uploads.length} uploads accepted, SIGKILL ${reached ? `once ${point.name}` : `with no job left (${point.name} never seen)`}: ${JSON.stringify(state)}`);
      outstandingAtKills += state.jobs;
    }
    // The kills did land while work was outstanding.
    expect(outstandingAtKills).toBeGreaterThan(0);

    // The last restart: every accepted upload must settle.
    server = await startServer();
    const s = server;
    const restartedAt = Date.now();
    let files: Array<{ id: string; processing_status: string; sha256: string | null; storage_path: string | null; processing_error: string | null }> = [];
    for (;;) {
      const res = await fetch(`${s.base}/api/admin/files`, { headers: { authorization: auth } });
      expect(res.status).toBe(200);
      files = (await res.json()) as typeof files;
      if (files.every((f) => f.processing_status !== 'PENDING')) break;
      if (Date.now() - restartedAt > 150_000) throw new Error(`files still PENDING after 150 s: ${JSON.stringify(files.filter((f) => f.processing_status === 'PENDING'))}`);
      await sleep(250);
    }
    const failedAttempts = outputs.flat().join('').split('file processing attempt failed').length - 1;
    log.push(`after restart: ${files.length} files settled in ${Date.now() - restartedAt} ms; jobs in progress at the kills: ${inProgressAtKills}; failed attempts logged: ${failedAttempts}`);
    expect(files.map((f) => f.id).sort()).toEqual([...expected.keys()].sort());

    const failed = files.filter((f) => f.processing_status === 'FAILED');
    if (failed.length > 0) log.push(`FAILED: ${JSON.stringify(failed.map((f) => ({ id: f.id, error: f.processing_error })))}`);
    // Nothing in this scenario can fail for good: the staging uploads are durable before 201.
    expect(failed).toEqual([]);

    for (const f of files) {
      const want = expected.get(f.id) as Upload;
      expect(f.processing_status).toBe('COMPLETED');
      expect(f.sha256, want.name).toBe(want.sha256);
      const res = await fetch(`${s.base}/api/admin/files/${f.id}/download`, { headers: { authorization: auth } });
      expect(res.status, `download of ${want.name}`).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      // The ETag is the hash of the bytes as stored; for plain files, of the upload itself.
      expect(res.headers.get('etag')).toBe(`"${sha(bytes)}"`);
      const plain = want.encrypted ? decryptBuffer(filesKey, bytes) : bytes;
      if (!want.encrypted) expect(sha(bytes)).toBe(want.sha256);
      expect(plain.length).toBe(want.size);
      expect(sha(plain), want.name).toBe(want.sha256);
    }

    // A graceful stop, then a sweep of the same folder with no grace.
    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    const store = openSqliteStore({ path: join(dataDir, 'gatehouse.db') });
    const blobRoot = join(dataDir, 'blobs');
    try {
      const before = blobFiles(blobRoot);
      const removed = await sweepOrphanBlobs({ store, blobs: createLocalBlobStore({ root: blobRoot }) }, 0, Date.now() + 1000);
      const stored = files.map((f) => f.storage_path as string).sort();
      expect(new Set(stored).size).toBe(files.length);
      expect(blobFiles(blobRoot)).toEqual(stored);
      // Only the files' contents are referenced: no job is left (it would hold a staging key).
      expect([...(await store.referencedBlobKeys())].sort()).toEqual(stored);
      const tmp = readdirSafe(join(blobRoot, '.tmp'));
      // Writes cut short by a kill leave temp files (swept by the store after an hour); none
      // may predate this run.
      for (const name of tmp) expect(statSync(join(blobRoot, '.tmp', name)).mtimeMs).toBeGreaterThanOrEqual(startedAt - 1000);
      log.push(`sweep: ${before.length} blobs, ${removed} orphans removed, ${stored.length} kept; ${tmp.length} partial writes in .tmp`);
    } finally {
      await store.close();
    }
  }, 400_000);
});
