// An in-process Gatehouse on a fresh database (SQLite, or PostgreSQL and S3), with a clock the test moves by hand.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Deps } from '../../src/application/deps.js';
import type { Store } from '../../src/application/ports/store.js';
import { freshDatabase } from './postgres-databases.js';
import { sharedS3Server } from './shared-s3.js';
import { createOwner } from '../../src/application/console/owners.js';
import { createMetrics } from '../../src/adapters/http/metrics.js';
import { buildHttpApp } from '../../src/adapters/http/server.js';
import { boot } from '../../src/boot.js';
import { readConfig } from '../../src/config.js';
import { openConfiguredStore, SQLITE_FILE } from '../../src/open-store.js';
import { createCryptoPool } from '../../src/adapters/crypto/crypto-pool.js';
import { createFileProcessor, type FileProcessor } from '../../src/application/files/file-processor.js';
import { createWebhookDeliverer, type WebhookDeliverer } from '../../src/application/events/webhook-deliverer.js';
import { seededRandom } from './seeded-random.js';
import './shared-schema-compilers.js';
import { createAuditChainer } from '../../src/application/events/audit-chainer.js';
import { createMembershipNoticer } from '../../src/application/events/membership-notices.js';
import type { PeriodicPasses } from '../../src/application/periodic-passes.js';
import type { ThrottleLimits } from '../../src/domain/auth-throttle.js';
import type { SignUpLimits } from '../../src/domain/sign-up-limits.js';

export const T0 = Date.parse('2026-06-08T12:00:00.000Z');

/** Shared by every test app of a file, as in the server: each app would otherwise keep its own idle workers. */
const cryptoPool = createCryptoPool();

/** argon2id at a test cost: same code path, a fraction of the time. */
export const testArgon2 = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/**
 * An empty SQLite database, migrated once per test process: each app starts from a copy of it
 * instead of running every migration again (docs/testing.md). Nothing else is in it, so each app
 * still seals and digests under its own master key.
 */
let migratedSqlite: Promise<string> | undefined;
function migratedSqliteFile(): Promise<string> {
  migratedSqlite ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-migrated-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const store = await openConfiguredStore(readConfig({ GATEHOUSE_DATA_DIR: dir, GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64') }), { auditKey: randomBytes(32) });
    await store.close();
    return join(dir, SQLITE_FILE);
  })();
  return migratedSqlite;
}

export interface TestClock {
  now(): number;
  set(t: number): void;
  advance(ms: number): void;
}

export function testClock(start = T0): TestClock {
  let t = start;
  return { now: () => t, set: (v) => (t = v), advance: (ms) => (t += ms) };
}

/**
 * The backend HTTP tests run on: SQLite and a local folder by default; PostgreSQL and S3 (an
 * S3-protocol server on loopback) with GATEHOUSE_TEST_BACKEND=postgres (see vitest.config.ts).
 */
export const testBackend: 'sqlite' | 'postgres' = process.env['GATEHOUSE_TEST_BACKEND'] === 'postgres' ? 'postgres' : 'sqlite';

/**
 * The server's configuration for the test's backend: SQLite and a local folder in the test's data
 * folder, or a fresh PostgreSQL database and a fresh bucket (dropped by `drop`).
 */
async function backendEnv(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (testBackend === 'sqlite') return { env: {}, drop: async () => {} };
  const db = await freshDatabase();
  const s3 = await sharedS3Server();
  const o = s3.storeOptions(await s3.createBucket());
  const env = {
    DATABASE_URL: db.url,
    GATEHOUSE_BLOB_STORE: 's3',
    S3_BUCKET: o.bucket,
    S3_REGION: o.region ?? '',
    S3_ENDPOINT: o.endpoint ?? '',
    S3_FORCE_PATH_STYLE: String(o.forcePathStyle ?? true),
    S3_ACCESS_KEY_ID: o.accessKeyId ?? '',
    S3_SECRET_ACCESS_KEY: o.secretAccessKey ?? '',
  };
  return { env, drop: db.drop };
}

export interface TestApp {
  http: FastifyInstance;
  deps: Deps;
  store: Store;
  clock: TestClock;
  /** The SQLite file (used on SQLite only). */
  dbPath: string;
  /** The PostgreSQL database's URL, or null on SQLite. */
  databaseUrl: string | null;
  /** The root of the local blob store. */
  blobRoot: string;
  /** The data folder holding both. */
  dataDir: string;
  masterKey: Buffer;
  /** File processing: not started; tests run queued jobs with drain(). */
  processor: FileProcessor;
  /** Webhook delivery: not started; tests attempt due deliveries with drain() (retry jitter seeded). */
  webhooks: WebhookDeliverer;
  /** Audit chaining: not started; tests link pending events with drain(). */
  chainer: PeriodicPasses;
  /** Expiry notices: not started; tests record what is due at the clock's now with drain(). */
  notices: PeriodicPasses;
  /** A console token of a ready-made owner. */
  ownerToken: string;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Another instance of the server on the same database, blob store, master key and clock (as a
   * second process would be), with its own workers; closed with this one. */
  startPeer(): Promise<TestApp>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  limits?: Partial<ThrottleLimits>;
  signUpLimits?: Partial<Pick<SignUpLimits, 'perAddress'>>;
  argon2?: typeof testArgon2;
  trustProxy?: string[];
  maxUploadBytes?: number;
  /** Where the test's data folder is made (default: the OS temp folder). */
  parentDir?: string;
  /** Capture log lines (at debug level) instead of running silent. */
  logLines?: string[];
  /** The dashboard build to serve (default: the server's own default). */
  dashboardDir?: string;
  /** Requests with password work in progress or waiting, per application (default: the server's). */
  passwordQueue?: number;
  /** GATEHOUSE_COOKIE_SECURE (default `auto`). */
  cookieSecure?: 'auto' | 'always';
  /** GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS (default: the server's). */
  consoleTokenIdleHours?: number;
  /** GATEHOUSE_METRICS=1: answers counted and served at GET /metrics (default: off, as the server's). */
  metrics?: boolean;
  /** GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1: webhook receivers on loopback (default: off, as the server's). */
  webhooksAllowPrivate?: boolean;
  /** Start with no owner (a fresh install); `ownerToken` is then empty. */
  withoutOwner?: boolean;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'gatehouse-test-'));
  const dbPath = join(dir, SQLITE_FILE);
  const backend = await backendEnv();
  if (testBackend === 'sqlite') copyFileSync(await migratedSqliteFile(), dbPath);
  const clock = testClock();
  const masterKey = randomBytes(32);
  const blobRoot = join(dir, 'blobs');
  const limits = { lockoutThreshold: 10, ipFailureLimit: 100, accountFailureLimit: 100, ...options.limits };
  const config = readConfig({
    ...backend.env,
    GATEHOUSE_DATA_DIR: dir,
    GATEHOUSE_MASTER_KEY: masterKey.toString('base64'),
    GATEHOUSE_MAX_UPLOAD_BYTES: String(options.maxUploadBytes ?? 64 * 1024 * 1024),
    GATEHOUSE_LOCKOUT_THRESHOLD: String(limits.lockoutThreshold),
    GATEHOUSE_IP_FAILURE_LIMIT: String(limits.ipFailureLimit),
    ...(options.passwordQueue === undefined ? {} : { GATEHOUSE_PASSWORD_QUEUE: String(options.passwordQueue) }),
    ...(options.consoleTokenIdleHours === undefined ? {} : { GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS: String(options.consoleTokenIdleHours) }),
    GATEHOUSE_ACCOUNT_FAILURE_LIMIT: String(limits.accountFailureLimit),
    ...(options.webhooksAllowPrivate ? { GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE: '1' } : {}),
    // Generous by default: most tests sign many users up from one address.
    GATEHOUSE_SIGN_UPS_PER_ADDRESS: String(options.signUpLimits?.perAddress ?? 100_000),
  });
  const peers: TestApp[] = [];
  // One instance of the server on the test's database: the first, then any peers (startPeer).
  async function instance(first: boolean, workerId: string): Promise<TestApp> {
    // The server's own boot sequence, at a test cost of argon2 and on the test's clock.
    const booted = await boot(config, { clock, argon2: options.argon2 ?? testArgon2 });
    const { deps } = booted;
    const store = deps.store;
    const lines = options.logLines;
    const http = await buildHttpApp({
      deps,
      logLevel: lines ? 'debug' : false,
      trustProxy: options.trustProxy ?? [],
      checkAnswers: true,
      ...(options.cookieSecure ? { cookieSecure: options.cookieSecure } : {}),
      ...(options.dashboardDir ? { dashboardDir: options.dashboardDir } : {}),
      ...(lines ? { logStream: { write: (line: string) => void lines.push(line) } } : {}),
      ...(options.metrics === true ? { metrics: { metrics: createMetrics(deps), route: true } } : {}),
    });
    const { token } = !first ? { token: ownerToken } : options.withoutOwner ? { token: '' } : await createOwner(deps, 'owner@example.com', 'owner-password-1');
    ownerToken = token;
    const processor = createFileProcessor(deps, { workerId, concurrency: 1, pollMs: 50, sealer: cryptoPool.sealer, meter: cryptoPool.meter });
    const jitter = seededRandom(`webhook-jitter${first ? '' : `-${workerId}`}`);
    const webhooks = createWebhookDeliverer(deps, { workerId, concurrency: 1, pollMs: 50, random: () => jitter.int(1_000_000) / 1_000_000 });
    const chainer = createAuditChainer(deps, { pollMs: 500 });
    const notices = createMembershipNoticer(deps, { pollMs: 60_000 });
    const self: TestApp = {
      http,
      deps,
      store,
      clock,
      dbPath,
      databaseUrl: config.databaseUrl,
      blobRoot,
      dataDir: dir,
      masterKey,
      processor,
      webhooks,
      chainer,
      notices,
      ownerToken: token,
      inject: (o) => http.inject(o),
      async startPeer() {
        const peer = await instance(false, `test-worker-${peers.length + 2}`);
        peers.push(peer);
        return peer;
      },
      async close() {
        if (first) for (const peer of peers.splice(0)) await peer.close();
        await processor.stop();
        await webhooks.stop();
        await chainer.stop();
        await notices.stop();
        await http.close();
        await booted.close();
        if (!first) return;
        await backend.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return self;
  }
  let ownerToken = '';
  return instance(true, 'test-worker');
}

export interface AppCredentials {
  api_key: string;
  api_secret: string;
  admin_api_key: string;
  files_encryption_key: string;
  request_signing_key: string;
}

/** Creates an application through the console API and returns it with its credentials. */
export async function createApplication(
  t: TestApp,
  settings: Record<string, unknown> = {},
  ownerToken = t.ownerToken,
): Promise<{ id: string; credentials: AppCredentials; headers: Record<string, string> }> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/console/applications',
    headers: { authorization: `Bearer ${ownerToken}` },
    payload: { name: 'Test App', ...settings },
  });
  if (res.statusCode !== 201) throw new Error(`create application: ${res.statusCode} ${res.body}`);
  const body = res.json<{ application: { id: string }; credentials: AppCredentials }>();
  return {
    id: body.application.id,
    credentials: body.credentials,
    headers: { 'x-api-key': body.credentials.api_key, 'x-api-secret': body.credentials.api_secret },
  };
}

/** Issues licenses through the console API; returns their codes. */
export async function createLicenses(t: TestApp, appId: string, count: number, minutes: number | null): Promise<string[]> {
  const res = await t.inject({
    method: 'POST',
    url: `/api/console/applications/${appId}/licenses`,
    headers: { authorization: `Bearer ${t.ownerToken}` },
    payload: { count, minutes },
  });
  if (res.statusCode !== 201) throw new Error(`create licenses: ${res.statusCode} ${res.body}`);
  return res.json<{ licenses: Array<{ code: string }> }>().licenses.map((l) => l.code);
}

/** Console request shorthand. */
export function consoleRequest(t: TestApp, method: InjectOptions['method'], url: string, payload?: unknown) {
  return t.inject({
    method,
    url: `/api/console${url}`,
    headers: { authorization: `Bearer ${t.ownerToken}` },
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

/** Has the test app listen on a free loopback port; its base URL. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  await t.http.listen({ host: '127.0.0.1', port: 0 });
  const address = t.http.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}
