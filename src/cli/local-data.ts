// The commands that work on the data itself (owner ..., backup, restore) rather than over HTTP:
// they open the configured database with the server's own configuration (same variables, same
// resolution of the data folder, same master key), so local access to the data is the authority.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Deps } from '../application/deps.js';
import { boot } from '../boot.js';
import { readConfig, type Config } from '../config.js';
import { assertSupported, SQLITE_FILE } from '../open-store.js';
import { CliError, EXIT } from './cli-errors.js';

export interface LocalData {
  config: Config;
  deps: Deps;
  close(): Promise<void>;
}

/** Refuses to create a new SQLite database unless asked to (`--init`): a CLI run outside the server's
 * folder, or without its GATEHOUSE_DATA_DIR, would otherwise write to an empty database of its own that
 * the server never reads (docs/cli.md, "CI command line"). */
export function assertDatabaseExists(config: Config, init: boolean, offerInit = true): void {
  if (config.databaseUrl !== null || init) return;
  const file = join(config.dataDir, SQLITE_FILE);
  if (!existsSync(file)) {
    throw new CliError(
      EXIT.FAILURE,
      `no Gatehouse database at ${file}: run this with the server's settings: where it runs or with its GATEHOUSE_DATA_DIR (default ./data of the current folder); on PostgreSQL, with its DATABASE_URL and GATEHOUSE_MASTER_KEY${offerInit ? ' (--init creates a new embedded database here instead)' : ''}`,
    );
  }
}

export async function openLocalData(options: { init: boolean }): Promise<LocalData> {
  const config = readConfig();
  assertSupported(config);
  assertDatabaseExists(config, options.init);
  // The server's own boot: digests agree with the server's, or a token printed would never match.
  return boot(config);
}
