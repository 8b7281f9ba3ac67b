// Acceptance (issue 4): two server processes on one database and one blob store. Parallel clients
// spread over both instances must see one license code redeemed once, the session and device caps
// held, the failed-login throttle held across instances, every upload processed exactly once, and,
// when one instance is SIGKILLed mid-processing, the other finishing its jobs once their leases
// run out; and a signed request accepted once over both. Run on PostgreSQL + S3 (s3rver) when
// GATEHOUSE_TEST_DATABASE_URL is set, and on SQLite (two processes on one data folder: one
// database file, one local blob folder).
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/postgres-databases.js';
import { S3_TEST_CREDENTIALS, S3_TEST_REGION, startS3Server, type S3TestServer } from '../support/s3-server.js';
import { seededRandom } from '../support/seeded-random.js';
import { signedInject } from '../support/request-signer.js';
import { baseServerEnv, buildServer, killServer, runCli, startServerProcess, type Build, type ServerProcess } from '../support/server-process.js';
import { NO_REUSE, request, type JsonAnswer } from './json-request.js';

const MiB = 1024 * 1024;
const postgresUrl = process.env['GATEHOUSE_TEST_DATABASE_URL'];
if (!postgresUrl) console.warn('GATEHOUSE_TEST_DATABASE_URL is not set: the two-instance test on PostgreSQL + S3 is skipped');

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** files/<app>/<job>- of a stored key files/<app>/<job>-<attempt>: every attempt of that job. */
const jobPrefix = (key: string | null) => (key ?? 'none').replace(/-\d+$/, '-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Server starts may be slow while the rest of the suite runs on two cores: a bound, not a wait. */
const START_LIMIT_MS = 60_000;

// One build for both backends, made on first use.
let build: Promise<Build> | null = null;
const getBuild = () => (build ??= buildServer());
afterAll(async () => {
  if (build !== null) (await build.catch(() => null))?.remove();
});

interface Backend {
  /** The environment of each instance (A, B). */
  envs: [NodeJS.ProcessEnv, NodeJS.ProcessEnv];
  /** Keys of every stored object under files/. */
  fileObjects(): Promise<string[]>;
  /** Keys of every object under staging/. */
  stagingObjects(): Promise<string[]>;
  /** Rows left in the job queue. */
  jobRows(): Promise<number>;
}

const tally = (answers: JsonAnswer[]) => {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status === 200 || a.status === 201 ? String(a.status) : `${a.status} ${a.body?.error_code}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
};

function walk(root: string): string[] {
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
  } catch {
    return [];
  }
}

/** The scenarios, against two running instances of one backend. */
function scenarios(name: string, setup: () => Promise<Backend>, teardown: () => Promise<void>) {
  let backend: Backend;
  let a: ServerProcess | null = null;
  let b: ServerProcess | null = null;
  const servers = () => [a as ServerProcess, b as ServerProcess];
  /** The instance of the i-th request: alternating A, B. */
  const pick = (i: number) => servers()[i % 2]!.base;
  let ownerAuth: Record<string, string> = {};
  let appId = '';
  let appHeaders: Record<string, string> = {};
  let adminAuth: Record<string, string> = {};
  const log: string[] = [];
  // Sizes, names and contents from one seed per backend: every run uploads the same bytes.
  const random = seededRandom(`two-instances:${name}`);

  async function licenses(app: string, count: number): Promise<string[]> {
    const res = await request(pick(0), 'POST', `/api/console/applications/${app}/licenses`, ownerAuth, { count, minutes: 60 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body.licenses as Array<{ code: string }>).map((l) => l.code);
  }

  async function createApp(body: Record<string, unknown>) {
    const res = await request(pick(1), 'POST', '/api/console/applications', ownerAuth, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const c = res.body.credentials as { api_key: string; api_secret: string; admin_api_key: string };
    return { id: res.body.application.id as string, headers: { 'x-api-key': c.api_key, 'x-api-secret': c.api_secret }, admin: { authorization: `Bearer ${c.admin_api_key}` } };
  }

  async function signUp(i: number, headers: Record<string, string>, username: string, password: string, hardwareId?: string) {
    const res = await request(pick(i), 'POST', '/api/integration/sign_up', headers, { username, password, ...(hardwareId ? { hardware_id: hardwareId } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }

  async function uploadTo(base: string, i: number, size: number, encrypted: boolean) {
    const content = random.bytes(size);
    const form = new FormData();
    form.append('name', `f-${i}`);
    form.append('is_public', 'false');
    form.append('store_encrypted', String(encrypted));
    form.append('file', new Blob([content]), 'build.bin');
    const res = await fetch(`${base}/api/admin/files`, { method: 'POST', headers: { ...NO_REUSE, ...adminAuth }, body: form });
    const body = (await res.json()) as { id: string; processing_status: string };
    expect(res.status, JSON.stringify(body)).toBe(201);
    return { id: body.id, sha256: sha(content) };
  }

  async function settle(base: string, ids: string[], limitMs: number) {
    const started = Date.now();
    for (;;) {
      const res = await request(base, 'GET', '/api/admin/files', adminAuth);
      expect(res.status).toBe(200);
      const files = (res.body as Array<{ id: string; processing_status: string; sha256: string | null; storage_path: string | null; processing_error: string | null }>).filter((f) =>
        ids.includes(f.id),
      );
      if (files.length === ids.length && files.every((f) => f.processing_status !== 'PENDING')) return { files, ms: Date.now() - started };
      if (Date.now() - started > limitMs) throw new Error(`still PENDING after ${limitMs} ms: ${JSON.stringify(files.filter((f) => f.processing_status === 'PENDING').map((f) => f.id))}`);
      await sleep(200);
    }
  }

  beforeAll(async () => {
    const [built, be] = await Promise.all([getBuild(), setup()]);
    backend = be;
    const stdout = await runCli(built.outDir, backend.envs[0], ['owner', 'create', '--init', '--email', 'multi@example.com', '--password', 'multi-instance-password-1']);
    ownerAuth = { authorization: `Bearer ${(JSON.parse(stdout) as { token: string }).token}` };
    // Sequentially: on SQLite the first migrates the shared file before the second opens it.
    a = await startServerProcess(built.outDir, backend.envs[0], START_LIMIT_MS);
    b = await startServerProcess(built.outDir, backend.envs[1], START_LIMIT_MS);
    const app = await createApp({ name: `Multi ${name}`, device_auth: true, default_allowed_devices: 2, default_allowed_sessions: 3 });
    appId = app.id;
    appHeaders = app.headers;
    adminAuth = app.admin;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([killServer(a), killServer(b)]);
    await teardown();
    if (log.length > 0) console.log(`two instances (${name}):\n  ${log.join('\n  ')}`);
  });

  it('one license code is redeemed once among 50 parallel attempts over both instances', async () => {
    const users = Array.from({ length: 50 }, (_, i) => ({ username: `lic${i}`, password: `license-pass-${i}`, hw: `lic-hw-${i}` }));
    await Promise.all(users.map((u, i) => signUp(i, appHeaders, u.username, u.password, u.hw)));
    const [code] = await licenses(appId, 1);
    const answers = await Promise.all(
      users.map((u, i) => request(pick(i), 'POST', '/api/integration/activate_license', appHeaders, { code, username: u.username, password: u.password, hardware_id: u.hw })),
    );
    log.push(`activate_license x50: ${JSON.stringify(tally(answers))}`);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.every((r) => r.status === 200 || (r.status >= 400 && r.status < 500))).toBe(true);
    const license = await request(pick(1), 'GET', `/api/console/applications/${appId}/licenses?status=used`, ownerAuth);
    expect(license.status).toBe(200);
    expect((license.body as Array<{ code: string }>).filter((l) => l.code === code)).toHaveLength(1);
  }, 60_000);

  it("a 5-seat plan's code takes exactly 5 of 20 parallel redemptions over both instances", async () => {
    const users = Array.from({ length: 20 }, (_, i) => ({ username: `seat${i}`, password: `seat-pass-${i}`, hw: `seat-hw-${i}` }));
    await Promise.all(users.map((u, i) => signUp(i, appHeaders, u.username, u.password, u.hw)));
    const plan = await request(pick(0), 'POST', `/api/console/applications/${appId}/plans`, ownerAuth, { name: 'Team', kind: 'base', duration_minutes: 60, seats: 5 });
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    const issued = await request(pick(1), 'POST', `/api/console/applications/${appId}/licenses`, ownerAuth, { count: 1, plan_id: plan.body.id });
    const { id, code } = issued.body.licenses[0] as { id: string; code: string };
    const answers = await Promise.all(
      users.map((u, i) => request(pick(i), 'POST', '/api/integration/activate_license', appHeaders, { code, username: u.username, password: u.password, hardware_id: u.hw })),
    );
    log.push(`activate_license of 5 seats x20: ${JSON.stringify(tally(answers))}`);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    expect(answers.filter((r) => r.status !== 200).every((r) => r.status === 401 && r.body.error_code === 'LICENSE_USED')).toBe(true);
    const seats = await request(pick(0), 'GET', `/api/console/applications/${appId}/licenses/${id}/redemptions`, ownerAuth);
    expect(seats.body).toHaveLength(5);
  }, 60_000);

  it('the device cap and the session cap hold under 40 parallel logins over both instances', async () => {
    // Device cap 2: the member registered one device at sign-up, so one new device gets in.
    const password = 'device-cap-password';
    const userId = await signUp(0, appHeaders, 'devcap', password, 'devcap-hw-0');
    const [code] = await licenses(appId, 1);
    const act = await request(pick(1), 'POST', '/api/integration/activate_license', appHeaders, { code, username: 'devcap', password, hardware_id: 'devcap-hw-0' });
    expect(act.status, JSON.stringify(act.body)).toBe(200);
    const before = await request(pick(0), 'GET', `/api/console/applications/${appId}/users/${userId}`, ownerAuth);
    const registered = (before.body.registered_devices as unknown[]).length;
    expect(registered).toBe(1);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => request(pick(i), 'POST', '/api/integration/auth/login', appHeaders, { credentials: { username: 'devcap', password }, hardware_id: `devcap-new-${i}` })),
    );
    log.push(`device cap 2 (1 registered) login x40: ${JSON.stringify(tally(answers))}`);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(2 - registered);
    const after = await request(pick(1), 'GET', `/api/console/applications/${appId}/users/${userId}`, ownerAuth);
    expect((after.body.registered_devices as unknown[]).length).toBe(2);

    // Session cap 3, devices off.
    const open = await createApp({ name: `Multi ${name} sessions`, device_auth: false, default_allowed_sessions: 3 });
    await signUp(1, open.headers, 'sescap', password);
    const [code2] = await licenses(open.id, 1);
    const act2 = await request(pick(0), 'POST', '/api/integration/activate_license', open.headers, { code: code2, username: 'sescap', password });
    expect(act2.status, JSON.stringify(act2.body)).toBe(200);
    const sessions = await Promise.all(Array.from({ length: 40 }, (_, i) => request(pick(i), 'POST', '/api/integration/auth/login', open.headers, { credentials: { username: 'sescap', password } })));
    log.push(`session cap 3 login x40: ${JSON.stringify(tally(sessions))}`);
    expect(sessions.filter((r) => r.status === 200)).toHaveLength(3);
    expect(sessions.every((r) => r.status === 200 || (r.status >= 400 && r.status < 500))).toBe(true);
  }, 60_000);

  it('the failed-login throttle holds across instances (threshold 10, 50 parallel wrong passwords)', async () => {
    await signUp(0, appHeaders, 'throttled', 'the-right-password', 'thr-hw');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        request(pick(i), 'POST', '/api/integration/auth/login', appHeaders, { credentials: { username: 'throttled', password: `wrong-password-${i}` }, hardware_id: 'thr-hw' }),
      ),
    );
    const counts = tally(answers);
    log.push(`wrong password x50 (threshold 10): ${JSON.stringify(counts)}`);
    const invalid = counts['401 INVALID_CREDENTIALS'] ?? 0;
    const locked = counts['429 ACCOUNT_LOCKED'] ?? 0;
    expect(invalid).toBeGreaterThan(0);
    expect(invalid).toBeLessThanOrEqual(10);
    expect(invalid + locked).toBe(50);
  }, 60_000);

  it('a variable changed through one instance is served by the other on its next app_context (issue 19)', async () => {
    const app = await createApp({ name: `Multi ${name} content`, anonymous_access: true });
    const put = async (i: number, value: string) => {
      const res = await request(pick(i), 'PUT', `/api/console/applications/${app.id}/variables/channel`, ownerAuth, { value, is_public: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    const served = async (i: number) => {
      const res = await request(pick(i), 'GET', '/api/integration/app_context', app.headers);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.application.variables as Array<{ name: string; value: string }>;
    };
    await put(0, 'stable');
    // Both instances serve (and cache) it; then each sees the other's change on its next request.
    expect(await served(1)).toEqual([{ name: 'channel', value: 'stable' }]);
    expect(await served(0)).toEqual([{ name: 'channel', value: 'stable' }]);
    await put(0, 'beta');
    expect(await served(1)).toEqual([{ name: 'channel', value: 'beta' }]);
    await put(1, 'nightly');
    expect(await served(0)).toEqual([{ name: 'channel', value: 'nightly' }]);
  }, 60_000);

  it('a ban made through one instance refuses the next app_context on the other, whose clean answer it remembered', async () => {
    const app = await createApp({ name: `Multi ${name} bans`, device_auth: false, ban_propagation: false });
    const password = 'ban-memory-password';
    await signUp(0, app.headers, 'banned-next', password);
    const [code] = await licenses(app.id, 1);
    const act = await request(pick(1), 'POST', '/api/integration/activate_license', app.headers, { code, username: 'banned-next', password });
    expect(act.status, JSON.stringify(act.body)).toBe(200);
    const login = await request(pick(0), 'POST', '/api/integration/auth/login', app.headers, { credentials: { username: 'banned-next', password } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const auth = { ...app.headers, authorization: `Bearer ${login.body.session_token as string}` };
    const status = async (i: number) => (await request(pick(i), 'GET', '/api/integration/app_context', auth)).status;
    // Both instances answer (and remember the caller's clean ban probe) twice.
    expect([await status(0), await status(1), await status(0), await status(1)]).toEqual([200, 200, 200, 200]);
    // A ban of the license the user redeemed, by its code (a user ban would also end the session).
    const made = await request(pick(0), 'POST', `/api/console/applications/${app.id}/bans`, ownerAuth, { type: 'license', value: code });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(await status(1)).toBe(403);
    expect(await status(0)).toBe(403);
    const lifted = await request(pick(1), 'DELETE', `/api/console/applications/${app.id}/bans/${made.body.id as string}`, ownerAuth);
    expect(lifted.status).toBe(204);
    expect([await status(0), await status(1)]).toEqual([200, 200]);
  }, 60_000);

  it('a signed request is accepted once: its replay to the other instance is refused, and one of 20 parallel copies passes', async () => {
    const res = await request(pick(1), 'POST', '/api/console/applications', ownerAuth, { name: `Multi ${name} signed`, anonymous_access: true, request_signing: true, signature_window_seconds: 300 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const c = res.body.credentials as { api_key: string; api_secret: string; request_signing_key: string };
    const headers = { 'x-api-key': c.api_key, 'x-api-secret': c.api_secret };
    const sign = () => signedInject({ method: 'GET', url: '/api/integration/app_context', headers, key: c.request_signing_key, now: Date.now() });
    const once = sign();
    expect((await request(pick(0), 'GET', once.url, once.headers)).status).toBe(200);
    const replay = await request(pick(1), 'GET', once.url, once.headers);
    expect({ status: replay.status, code: replay.body?.error_code }).toEqual({ status: 401, code: 'REQUEST_REPLAYED' });

    const copy = sign();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => request(pick(i), 'GET', copy.url, copy.headers)));
    log.push(`one signed request x20: ${JSON.stringify(tally(answers))}`);
    expect(tally(answers)).toEqual({ '200': 1, '401 REQUEST_REPLAYED': 19 });
  }, 60_000);

  it('every upload, spread over both instances, is processed exactly once', async () => {
    const uploads = await Promise.all(Array.from({ length: 10 }, (_, i) => uploadTo(pick(i), i, 2 * MiB + random.int(2 * MiB), i % 3 === 0)));
    const { files, ms } = await settle(
      pick(1),
      uploads.map((u) => u.id),
      90_000,
    );
    log.push(`10 uploads over A and B settled in ${ms} ms`);
    for (const u of uploads) {
      const f = files.find((x) => x.id === u.id)!;
      expect(f.processing_status, f.processing_error ?? '').toBe('COMPLETED');
      expect(f.sha256).toBe(u.sha256);
    }
    // Each processing attempt publishes under files/<app>/<job>-<attempt>: one object per job,
    // the one the row names, means one completed processing.
    const objects = await backend.fileObjects();
    for (const u of uploads) {
      const f = files.find((x) => x.id === u.id)!;
      expect(
        objects.filter((k) => k.startsWith(jobPrefix(f.storage_path))),
        u.id,
      ).toEqual([f.storage_path]);
    }
    expect(objects.filter((k) => k.startsWith(`files/${appId}/`))).toHaveLength(uploads.length);
    expect(await backend.jobRows()).toBe(0);
    expect(await backend.stagingObjects()).toEqual([]);
  }, 120_000);

  it('when one instance is SIGKILLed mid-processing, the other finishes its jobs', async () => {
    const sA = a as ServerProcess;
    const sB = b as ServerProcess;
    const uploads = await Promise.all(Array.from({ length: 6 }, (_, i) => uploadTo(sA.base, 100 + i, 16 * MiB + random.int(16 * MiB), i % 2 === 1)));
    const killedAt = Date.now();
    sA.child.kill('SIGKILL');
    expect((await sA.exited).signal).toBe('SIGKILL');
    const pendingAtKill = await backend.jobRows();
    // The kill landed while A still held work (queued or claimed).
    expect(pendingAtKill).toBeGreaterThan(0);
    const { files, ms } = await settle(
      sB.base,
      uploads.map((u) => u.id),
      90_000,
    );
    log.push(`6 large uploads to A, A SIGKILLed with ${pendingAtKill} jobs queued; B settled them ${Date.now() - killedAt} ms after the kill (${ms} ms polling)`);
    for (const u of uploads) {
      const f = files.find((x) => x.id === u.id)!;
      expect(f.processing_status, f.processing_error ?? '').toBe('COMPLETED');
      expect(f.sha256).toBe(u.sha256);
    }
    // The bytes B serves are the ones uploaded to A (plain files: the upload itself).
    const plain = uploads.filter((_, i) => i % 2 === 0);
    for (const u of plain) {
      const res = await fetch(`${sB.base}/api/admin/files/${u.id}/download`, { headers: { ...NO_REUSE, ...adminAuth } });
      expect(res.status).toBe(200);
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(u.sha256);
    }
    expect(await backend.jobRows()).toBe(0);
    // The row names a stored object; an attempt A published before dying but never committed
    // may be left beside it, for the orphan sweep.
    const objects = await backend.fileObjects();
    let leftovers = 0;
    for (const u of uploads) {
      const f = files.find((x) => x.id === u.id)!;
      const mine = objects.filter((k) => k.startsWith(jobPrefix(f.storage_path)));
      expect(mine, u.id).toContain(f.storage_path);
      leftovers += mine.length - 1;
    }
    log.push(`after the kill: ${leftovers} uncommitted objects of the killed instance left for the orphan sweep`);
  }, 150_000);
}

function commonEnv(): Record<string, string> {
  return {
    GATEHOUSE_JOB_LEASE_MS: '2000',
    GATEHOUSE_WORKERS: '2',
    GATEHOUSE_LOCKOUT_THRESHOLD: '10',
    // All clients are 127.0.0.1: the per-IP limit is not what is under test.
    GATEHOUSE_IP_FAILURE_LIMIT: '100000',
    GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000',
    LOG_LEVEL: 'warn',
    GATEHOUSE_MAX_UPLOAD_BYTES: String(64 * MiB),
  };
}

describe.skipIf(!postgresUrl)('two instances on postgres+s3', () => {
  let s3: S3TestServer | null = null;
  let db: { url: string; drop: () => Promise<void> } | null = null;
  let sql: postgres.Sql | null = null;
  const dirs: string[] = [];

  scenarios(
    'postgres+s3',
    async () => {
      s3 = await startS3Server();
      const bucket = await s3.createBucket();
      db = await freshDatabase();
      sql = postgres(db.url, { max: 1, onnotice: () => {} });
      const masterKey = randomBytes(32).toString('base64');
      const shared = {
        ...commonEnv(),
        DATABASE_URL: db.url,
        GATEHOUSE_BLOB_STORE: 's3',
        S3_BUCKET: bucket,
        S3_ENDPOINT: s3.endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        S3_REGION: S3_TEST_REGION,
        S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
        S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
        GATEHOUSE_MASTER_KEY: masterKey,
      };
      const envFor = () => {
        const dir = mkdtempSync(join(tmpdir(), 'gatehouse-multi-pg-'));
        dirs.push(dir);
        return baseServerEnv({ ...shared, GATEHOUSE_DATA_DIR: dir });
      };
      const list = async (prefix: string) => {
        const keys: string[] = [];
        let token: string | undefined;
        do {
          const out = await s3!.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
          for (const o of out.Contents ?? []) keys.push(o.Key ?? '');
          token = out.IsTruncated ? out.NextContinuationToken : undefined;
        } while (token);
        return keys;
      };
      return {
        envs: [envFor(), envFor()],
        fileObjects: () => list('files/'),
        stagingObjects: () => list('staging/'),
        jobRows: async () => Number((await sql!`select count(*)::int as n from jobs`)[0]!['n']),
      };
    },
    async () => {
      await sql?.end({ timeout: 5 });
      await db?.drop();
      await s3?.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  );
});

describe('two instances on sqlite', () => {
  let dataDir = '';

  scenarios(
    'sqlite',
    async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-multi-sqlite-'));
      const env = baseServerEnv({ ...commonEnv(), GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64') });
      const blobs = join(dataDir, 'blobs');
      return {
        envs: [env, { ...env }],
        fileObjects: async () => walk(join(blobs, 'files')).map((k) => `files/${k}`),
        stagingObjects: async () => walk(join(blobs, 'staging')).map((k) => `staging/${k}`),
        jobRows: async () => {
          const db = new Database(join(dataDir, 'gatehouse.db'), { readonly: true, fileMustExist: true });
          try {
            return (db.prepare('select count(*) as n from jobs').get() as { n: number }).n;
          } finally {
            db.close();
          }
        },
      };
    },
    async () => {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  );
});
