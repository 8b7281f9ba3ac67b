import { join } from 'node:path';
import type { BlobStore, Store } from './application/ports.js';
import { createLocalBlobStore } from './adapters/blob/local-blob-store.js';
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

/** Refuses, before anything is written, a configuration this build cannot serve. */
export function assertSupported(config: Config): void {
  if (config.blobStore === 's3') {
    throw new ConfigError('GATEHOUSE_BLOB_STORE=s3: S3 storage is not available in this build yet; unset it to use the local folder');
  }
}

/**
 * The database the configuration names: PostgreSQL by DATABASE_URL, else SQLite in the data
 * folder. A database that cannot be reached stops the start with one line naming it.
 */
export async function openConfiguredStore(config: Config): Promise<Store> {
  assertSupported(config);
  if (config.databaseUrl === null) return openSqliteStore({ path: join(config.dataDir, SQLITE_FILE) });
  try {
    return await openPostgresStore({ url: config.databaseUrl });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(`DATABASE_URL: cannot open the PostgreSQL database at ${redactedUrl(config.databaseUrl)}: ${reason}`);
  }
}

/** The blob store the configuration names: the local folder under the data dir. */
export function openConfiguredBlobStore(config: Config): BlobStore {
  return createLocalBlobStore({ root: join(config.dataDir, BLOBS_FOLDER) });
}
