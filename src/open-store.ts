import { join } from 'node:path';
import type { BlobStore, Store } from './application/ports.js';
import { createLocalBlobStore } from './adapters/blob/local-blob-store.js';
import { openSqliteStore } from './adapters/persistence/sqlite/sqlite-store.js';
import { ConfigError, type Config } from './config.js';

export const SQLITE_FILE = 'gatehouse.db';
export const BLOBS_FOLDER = 'blobs';

/** The blob store the configuration names: the local folder under the data dir (S3 comes later). */
export function openConfiguredBlobStore(config: Config): BlobStore {
  return createLocalBlobStore({ root: join(config.dataDir, BLOBS_FOLDER) });
}

/** Refuses, before anything is written, a configuration this build cannot serve. */
export function assertSupported(config: Config): void {
  if (config.blobStore === 's3') {
    throw new ConfigError('GATEHOUSE_BLOB_STORE=s3: S3 storage is not available in this build yet; unset it to use the local folder');
  }
  if (config.databaseUrl !== null) {
    throw new ConfigError('DATABASE_URL: PostgreSQL is not available in this build yet; unset it to use the embedded SQLite database');
  }
}

/** The database the configuration names: SQLite in the data folder. */
export async function openConfiguredStore(config: Config): Promise<Store> {
  assertSupported(config);
  return openSqliteStore({ path: join(config.dataDir, SQLITE_FILE) });
}
