import { join } from 'node:path';
import type { BlobStore } from './application/ports/blob-store.js';
import type { Store } from './application/ports/store.js';
import { renderEvent } from './adapters/events/render-event.js';
import { createLocalBlobStore } from './adapters/blob/local-blob-store.js';
import { createS3BlobStore } from './adapters/blob/s3-blob-store.js';
import { accelerated } from './adapters/persistence/fast/accelerated.js';
import { openPostgresFastReads } from './adapters/persistence/fast/postgres-fast-reads.js';
import { keepingStatements } from './adapters/persistence/fast/sqlite-statement-cache.js';
import { openSqliteFastReads } from './adapters/persistence/fast/sqlite-fast-reads.js';
import { openPostgresStore } from './adapters/persistence/postgres/postgres-store.js';
import { openSqliteStore } from './adapters/persistence/sqlite/sqlite-store.js';
import { ConfigError, type Config } from './config.js';

export const SQLITE_FILE = 'gatehouse.db';
export const BLOBS_FOLDER = 'blobs';

/** A URL as it may be shown: without its password. */
function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the configured URL';
  }
}

/** Where the configuration keeps its data, as the start banner says it: the data folder for the
 * embedded setup; the database (without its password) and the bucket where those are used. */
export function describeStorage(config: Config): string {
  const files =
    config.blobStore === 's3' ? `files in S3 bucket ${config.s3.bucket ?? ''}${config.s3.endpoint === null ? '' : ` at ${config.s3.endpoint}`}` : `files in ${join(config.dataDir, BLOBS_FOLDER)}`;
  if (config.databaseUrl === null) return config.blobStore === 'local' ? `data in ${config.dataDir}` : `data in ${config.dataDir}, ${files}`;
  return `database ${redactedUrl(config.databaseUrl)}, ${files}`;
}

/** Refuses, before anything is written, a configuration this build cannot serve. */
export function assertSupported(config: Config): void {
  const s3 = config.s3;
  if (config.blobStore === 's3' && (s3.accessKeyId === null) !== (s3.secretAccessKey === null)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or leave both unset for the default credential chain)');
  }
}

/** The database the configuration names: PostgreSQL by DATABASE_URL, else SQLite in the data
 * folder. A database that cannot be reached stops the start with one line naming it. */
export async function openConfiguredStore(config: Config, keys: { auditKey: Uint8Array }): Promise<Store> {
  assertSupported(config);
  // The plain store, with the fast path's hot reads over it (docs/architecture.md, "The fast path").
  if (config.databaseUrl === null) {
    const path = join(config.dataDir, SQLITE_FILE);
    return accelerated(openSqliteStore({ path, auditKey: keys.auditKey, renderEvent, client: keepingStatements }), openSqliteFastReads(path));
  }
  try {
    return accelerated(await openPostgresStore({ url: config.databaseUrl, auditKey: keys.auditKey, renderEvent }), openPostgresFastReads(config.databaseUrl));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(`DATABASE_URL: cannot open the PostgreSQL database at ${redactedUrl(config.databaseUrl)}: ${reason}`);
  }
}

/** The blob store the configuration names: S3 (or S3-compatible), or the local folder under the data dir. */
export function openConfiguredBlobStore(config: Config): BlobStore {
  if (config.blobStore === 'local') return createLocalBlobStore({ root: join(config.dataDir, BLOBS_FOLDER) });
  // The SDK warns, in nine lines on stderr, that its releases after early 2027 will need Node 22.
  // The version is pinned in package.json, so the warning tells an operator nothing; silenced
  // unless set, so that start-up problems stay one line.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const s3 = config.s3;
  return createS3BlobStore({
    bucket: s3.bucket as string,
    ...(s3.region ? { region: s3.region } : {}),
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    forcePathStyle: s3.forcePathStyle,
    ...(s3.accessKeyId && s3.secretAccessKey ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } : {}),
  });
}

/** Checks the blob store answers; at start, a missing bucket or an unreachable endpoint is one clear line. */
export async function assertBlobStoreReachable(config: Config, blobs: BlobStore): Promise<void> {
  try {
    await blobs.ping();
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(config.blobStore === 's3' ? `S3: ${reason}` : `GATEHOUSE_DATA_DIR: the blob folder is not usable: ${reason}`);
  }
}
