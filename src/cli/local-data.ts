// The commands that work on the data itself (owner ..., backup, restore) rather than over HTTP:
// they open the configured database with the server's own configuration (same variables, same
// resolution of the data folder, same master key), so local access to the data is the authority.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Deps } from '../application/deps.js';
import { loadOrCreateMasterKey } from '../adapters/crypto/master-key.js';
import { composeDeps } from '../compose.js';
import { readConfig, type Config } from '../config.js';
import { assertSupported, openConfiguredBlobStore, openConfiguredStore, SQLITE_FILE } from '../open-store.js';
import { assertMasterKeyMatches } from '../startup-checks.js';
import { CliError, EXIT } from './cli-errors.js';

export interface LocalData {
  config: Config;
  deps: Deps;
  close(): Promise<void>;
}

/**
 * Refuses to create a new SQLite database unless asked to (`--init`): a CLI run outside the
 * server's folder, or without its GATEHOUSE_DATA_DIR, would otherwise write to an empty
 * database of its own that the server never reads (README, "CI command line").
 */
export function assertDatabaseExists(config: Config, init: boolean, offerInit = true): void {
  if (config.databaseUrl !== null || init) return;
  const file = join(config.dataDir, SQLITE_FILE);
  if (!existsSync(file)) {
    throw new CliError(
      EXIT.FAILURE,
      `no Gatehouse database at ${file}: run this where the server runs or with its GATEHOUSE_DATA_DIR (default ./data of the current folder)${offerInit ? ', or pass --init to create a new one' : ''}`,
    );
  }
}

export async function openLocalData(options: { init: boolean }): Promise<LocalData> {
  const config = readConfig();
  assertSupported(config);
  assertDatabaseExists(config, options.init);
  mkdirSync(config.dataDir, { recursive: true });
  const masterKey = config.masterKey ?? loadOrCreateMasterKey(config.dataDir);
  const store = await openConfiguredStore(config);
  try {
    const deps = composeDeps({
      store,
      blobs: openConfiguredBlobStore(config),
      masterKey,
      limits: { lockoutThreshold: config.lockoutThreshold, ipFailureLimit: config.ipFailureLimit },
      maxUploadBytes: config.maxUploadBytes,
    });
    // Digests must agree with the server's, or the token printed would never match.
    await assertMasterKeyMatches(deps);
    return { config, deps, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}
