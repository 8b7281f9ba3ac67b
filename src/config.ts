import { resolve } from 'node:path';
import { decodeMasterKey } from './adapters/crypto/master-key.js';
import { DEFAULT_CONSOLE_TOKEN_IDLE_HOURS, DEFAULT_PASSWORD_QUEUE } from './compose.js';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  blobStore: 'local' | 's3';
  s3: {
    bucket: string | null;
    region: string | null;
    endpoint: string | null;
    forcePathStyle: boolean;
    accessKeyId: string | null;
    secretAccessKey: string | null;
  };
  masterKey: Buffer | null;
  maxUploadBytes: number;
  trustProxy: string[];
  /** `always`: the console cookie is Secure (and our origin https) whatever the proxy says. */
  cookieSecure: 'auto' | 'always';
  lockoutThreshold: number;
  ipFailureLimit: number;
  /** Requests with password work in progress or waiting, per application, before 429. */
  passwordQueue: number;
  accountFailureLimit: number;
  signUpsPerAddress: number;
  workers: number;
  /** Lease of a claimed file-processing job; a job whose worker died is retaken after it. */
  jobLeaseMs: number;
  /** How long a stop waits for requests and jobs in flight before cutting them off. */
  shutdownGraceSeconds: number;
  /** Sessions that ended longer ago than this are deleted by the hourly purge. */
  sessionRetentionDays: number;
  /** Audit entries older than this many days are pruned by the hourly purge; null keeps them forever. */
  auditRetentionDays: number | null;
  /** A console Bearer token unused this many hours stops working. */
  consoleTokenIdleHours: number;
  /** Webhooks may go to http:// URLs and loopback, private and link-local addresses (GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1). */
  webhooksAllowPrivate: boolean;
  logLevel: string;
  /** Prometheus metrics (docs/configuration.md, "Metrics"): off; on the service's port at /metrics
   * (GATEHOUSE_METRICS=1); or on a port of their own (GATEHOUSE_METRICS_PORT). */
  metrics: { kind: 'off' } | { kind: 'route' } | { kind: 'port'; port: number };
}

/** Bad configuration: the message is one line naming the variable, shown without a stack. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(`${name} must be from ${min} to ${max}, got ${n}`);
  return n;
}

const text = (env: Env, name: string): string | null => {
  const v = env[name]?.trim();
  return v ? v : null;
};

function readMetrics(env: Env): Config['metrics'] {
  const flag = text(env, 'GATEHOUSE_METRICS') ?? '0';
  if (flag !== '0' && flag !== '1') throw new ConfigError(`GATEHOUSE_METRICS must be 0 or 1, got "${flag}"`);
  if (text(env, 'GATEHOUSE_METRICS_PORT') !== null) return { kind: 'port', port: integer(env, 'GATEHOUSE_METRICS_PORT', 0, 1, 65_535) };
  return flag === '1' ? { kind: 'route' } : { kind: 'off' };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function readConfig(env: Env = process.env): Config {
  const databaseUrl = text(env, 'DATABASE_URL');
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// (leave it unset for the embedded SQLite database)');
  }
  const blobStore = text(env, 'GATEHOUSE_BLOB_STORE') ?? 'local';
  if (blobStore !== 'local' && blobStore !== 's3') throw new ConfigError(`GATEHOUSE_BLOB_STORE must be local or s3, got "${blobStore}"`);
  const rawKey = text(env, 'GATEHOUSE_MASTER_KEY');
  const masterKey = rawKey === null ? null : decodeMasterKey(rawKey);
  if (rawKey !== null && masterKey === null) throw new ConfigError('GATEHOUSE_MASTER_KEY must be base64 of exactly 32 bytes');
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const cookieSecure = text(env, 'GATEHOUSE_COOKIE_SECURE') ?? 'auto';
  if (cookieSecure !== 'auto' && cookieSecure !== 'always') throw new ConfigError(`GATEHOUSE_COOKIE_SECURE must be auto or always, got "${cookieSecure}"`);
  const forcePathStyle = text(env, 'S3_FORCE_PATH_STYLE');
  if (forcePathStyle !== null && !['true', 'false', '1', '0'].includes(forcePathStyle)) {
    throw new ConfigError('S3_FORCE_PATH_STYLE must be true or false');
  }
  const config: Config = {
    host: text(env, 'HOST') ?? '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    dataDir: resolve(text(env, 'GATEHOUSE_DATA_DIR') ?? './data'),
    databaseUrl,
    blobStore,
    s3: {
      bucket: text(env, 'S3_BUCKET'),
      region: text(env, 'S3_REGION'),
      endpoint: text(env, 'S3_ENDPOINT'),
      forcePathStyle: forcePathStyle === 'true' || forcePathStyle === '1',
      accessKeyId: text(env, 'S3_ACCESS_KEY_ID'),
      secretAccessKey: text(env, 'S3_SECRET_ACCESS_KEY'),
    },
    masterKey,
    maxUploadBytes: integer(env, 'GATEHOUSE_MAX_UPLOAD_BYTES', 2 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
    trustProxy: (text(env, 'GATEHOUSE_TRUST_PROXY') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    cookieSecure,
    lockoutThreshold: integer(env, 'GATEHOUSE_LOCKOUT_THRESHOLD', 10, 1, 1_000_000),
    ipFailureLimit: integer(env, 'GATEHOUSE_IP_FAILURE_LIMIT', 100, 1, 100_000_000),
    passwordQueue: integer(env, 'GATEHOUSE_PASSWORD_QUEUE', DEFAULT_PASSWORD_QUEUE, 1, 100_000),
    accountFailureLimit: integer(env, 'GATEHOUSE_ACCOUNT_FAILURE_LIMIT', 100, 1, 100_000_000),
    signUpsPerAddress: integer(env, 'GATEHOUSE_SIGN_UPS_PER_ADDRESS', 20, 1, 100_000_000),
    workers: integer(env, 'GATEHOUSE_WORKERS', 2, 1, 64),
    jobLeaseMs: integer(env, 'GATEHOUSE_JOB_LEASE_MS', 30_000, 1_000, 3_600_000),
    shutdownGraceSeconds: integer(env, 'GATEHOUSE_SHUTDOWN_GRACE_SECONDS', 30, 0, 3_600),
    sessionRetentionDays: integer(env, 'GATEHOUSE_SESSION_RETENTION_DAYS', 30, 1, 36_500),
    // 0 (the default) keeps the audit log forever.
    auditRetentionDays: integer(env, 'GATEHOUSE_AUDIT_RETENTION_DAYS', 0, 0, 36_500) || null,
    consoleTokenIdleHours: integer(env, 'GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS', DEFAULT_CONSOLE_TOKEN_IDLE_HOURS, 1, 876_000),
    webhooksAllowPrivate: integer(env, 'GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE', 0, 0, 1) === 1,
    logLevel,
    metrics: readMetrics(env),
  };
  if (config.blobStore === 's3' && config.s3.bucket === null) throw new ConfigError('S3_BUCKET is required when GATEHOUSE_BLOB_STORE=s3');
  return config;
}
