// `gatehouse backup <file>` and `gatehouse restore <file>` for the embedded setup (SQLite and the
// local blobs folder; docs/deployment.md, "Backups"). A backup is two things side by side: <file>, an SQLite
// database, and <file>.blobs/, the file contents. PostgreSQL and S3 are backed up with their own
// tools.
import { copyFile, constants, mkdir, rename, rm, stat } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeMasterKey, MASTER_KEY_FILE } from '../adapters/crypto/master-key.js';
import { createLocalBlobStore } from '../adapters/blob/local-blob-store.js';
import { backupSqliteFile, sqliteFileInUse } from '../adapters/persistence/sqlite/backup.js';
import { openSqliteStore } from '../adapters/persistence/sqlite/sqlite-store.js';
import { createSecrets } from '../adapters/crypto/secrets.js';
import { readConfig, type Config } from '../config.js';
import { BLOBS_FOLDER, SQLITE_FILE } from '../open-store.js';
import { assertMasterKeyMatches } from '../startup-checks.js';
import { CliError, EXIT, UsageError } from './cli-errors.js';
import { assertDatabaseExists } from './local-data.js';

const blobsBeside = (file: string) => `${file}.blobs`;
const note = (line: string) => void process.stderr.write(`${line}\n`);

function embeddedOnly(config: Config, command: string): void {
  if (config.databaseUrl !== null || config.blobStore !== 'local') {
    throw new CliError(
      EXIT.FAILURE,
      `gatehouse ${command} covers the embedded setup (SQLite and local files); with DATABASE_URL or S3 use pg_dump and the bucket's own copies (docs/deployment.md, "Backups")`,
    );
  }
}

/**
 * Blob keys under `root`, as the local blob store lists them: writes in progress (.tmp) are no
 * one's yet, and a folder the running server removes meanwhile (an emptied staging folder) is
 * skipped rather than failing the walk.
 */
async function blobKeys(root: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of createLocalBlobStore({ root }).list('')) keys.push(key);
  return keys;
}

/** Copies the keys not yet in `to`; a blob deleted meanwhile is skipped. How many were copied. */
async function copyBlobs(from: string, to: string, keys: string[]): Promise<number> {
  let copied = 0;
  for (const key of keys) {
    const target = join(to, ...key.split('/'));
    if (existsSync(target)) continue;
    await mkdir(dirname(target), { recursive: true });
    try {
      // A copy-on-write clone where the file system offers one, else a plain copy.
      await copyFile(join(from, ...key.split('/')), target, constants.COPYFILE_FICLONE);
      copied += 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return copied;
}

/** The master key the data folder's database was set up with, or null where none is known. */
/** Copies of the database a backup takes at most, to find every blob its rows refer to (see backup). */
const SNAPSHOTS = 5;

/** The blobs the rows of the database copy refer to that are not in the blob copy; the check also opens the copy. */
async function missingBlobs(database: string, blobs: string): Promise<string[]> {
  const store = openSqliteStore({ path: database });
  try {
    return [...(await store.referencedBlobKeys())].filter((key) => !existsSync(join(blobs, ...key.split('/'))));
  } finally {
    await store.close();
  }
}

function knownMasterKey(config: Config): Buffer | null {
  if (config.masterKey !== null) return config.masterKey;
  const path = join(config.dataDir, MASTER_KEY_FILE);
  return existsSync(path) ? decodeMasterKey(readFileSync(path, 'utf8')) : null;
}

/**
 * The order makes the copy whole while the server writes: blobs first, then the database as of
 * one moment, then the blobs that appeared meanwhile. Every blob the copied rows refer to then
 * existed at one of the two passes, unless it was both written and deleted during the backup: an
 * upload staged after the first pass and processed before the second (its staging blob deleted).
 * Then the database is copied again, as of a later moment (the file now COMPLETED, its stored
 * contents copied by the next pass), up to SNAPSHOTS times.
 */
async function backup(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('backup needs one <file>');
  const config = readConfig();
  embeddedOnly(config, 'backup');
  assertDatabaseExists(config, false, false);
  const file = resolve(positionals[0] as string);
  if (existsSync(file) || existsSync(blobsBeside(file))) throw new CliError(EXIT.FAILURE, `${file} or ${blobsBeside(file)} exists already: choose a new name`);
  if (!existsSync(dirname(file))) throw new CliError(EXIT.FAILURE, `the folder ${dirname(file)} does not exist`);
  const partialDb = `${file}.partial`;
  const partialBlobs = `${blobsBeside(file)}.partial`;
  await rm(partialDb, { force: true });
  await rm(partialBlobs, { recursive: true, force: true });
  const blobRoot = join(config.dataDir, BLOBS_FOLDER);
  try {
    await mkdir(partialBlobs);
    const first = await copyBlobs(blobRoot, partialBlobs, await blobKeys(blobRoot));
    let pages = 0;
    let later = 0;
    let missing: string[] = [];
    for (let snapshot = 1; snapshot <= SNAPSHOTS; snapshot++) {
      await rm(partialDb, { force: true });
      ({ pages } = await backupSqliteFile(join(config.dataDir, SQLITE_FILE), partialDb));
      later += await copyBlobs(blobRoot, partialBlobs, await blobKeys(blobRoot));
      missing = await missingBlobs(partialDb, partialBlobs);
      if (missing.length === 0) break;
    }
    if (missing.length > 0) note(`note: ${missing.length} file contents were deleted while the backup ran; their rows are in it without contents`);
    // The database last: its presence under the final name marks a complete backup.
    await rename(partialBlobs, blobsBeside(file));
    await rename(partialDb, file);
    const size = (await stat(file)).size;
    process.stdout.write(`${JSON.stringify({ database: file, blobs: blobsBeside(file), pages, database_bytes: size, blob_files: first + later })}\n`);
    note(`backed up to ${file} and ${blobsBeside(file)}; the master key is not in it: keep ${config.masterKey ? 'GATEHOUSE_MASTER_KEY' : join(config.dataDir, MASTER_KEY_FILE)} safe apart`);
    return EXIT.OK;
  } catch (error) {
    await rm(partialDb, { force: true });
    await rm(partialBlobs, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Replaces the data folder's database and blobs with a backup's, the server stopped. What was
 * there is moved aside, not deleted. The backup must open with the configured master key.
 */
async function restore(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('restore needs one <file> (made by gatehouse backup)');
  const config = readConfig();
  embeddedOnly(config, 'restore');
  const file = resolve(positionals[0] as string);
  if (!existsSync(file) || !existsSync(blobsBeside(file))) throw new CliError(EXIT.FAILURE, `a backup is ${file} with ${blobsBeside(file)} beside it; not found`);
  const dbPath = join(config.dataDir, SQLITE_FILE);
  if (existsSync(dbPath) && sqliteFileInUse(dbPath)) throw new CliError(EXIT.FAILURE, `${dbPath} is in use: stop the server first`);
  const masterKey = knownMasterKey(config);
  if (masterKey === null) {
    throw new CliError(EXIT.FAILURE, `no master key: put the backed-up installation's ${MASTER_KEY_FILE} in ${config.dataDir} or set GATEHOUSE_MASTER_KEY`);
  }
  await mkdir(config.dataDir, { recursive: true });

  // The copy is checked before anything is replaced: it opens, migrates, and its secrets open with this key.
  const incoming = `${dbPath}.restoring`;
  await rm(incoming, { force: true });
  await copyFile(file, incoming);
  const store = openSqliteStore({ path: incoming });
  try {
    const blobs = createLocalBlobStore({ root: blobsBeside(file) });
    await assertMasterKeyMatches({ store, secrets: createSecrets(masterKey) });
  } catch (error) {
    await store.close();
    await rm(incoming, { force: true });
    throw error;
  }
  await store.close();

  const aside = join(config.dataDir, `replaced-by-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const current = [SQLITE_FILE, `${SQLITE_FILE}-wal`, `${SQLITE_FILE}-shm`, BLOBS_FOLDER].filter((name) => existsSync(join(config.dataDir, name)));
  if (current.length > 0) {
    await mkdir(aside);
    for (const name of current) await rename(join(config.dataDir, name), join(aside, name));
  }
  const blobRoot = join(config.dataDir, BLOBS_FOLDER);
  await mkdir(blobRoot);
  const copied = await copyBlobs(blobsBeside(file), blobRoot, await blobKeys(blobsBeside(file)));
  for (const suffix of ['-wal', '-shm']) await rm(`${incoming}${suffix}`, { force: true });
  await rename(incoming, dbPath);
  process.stdout.write(`${JSON.stringify({ restored: file, data_dir: config.dataDir, blob_files: copied, replaced: current.length > 0 ? aside : null })}\n`);
  if (current.length > 0) note(`the data that was there is in ${aside}; delete it once the restored server works`);
  return EXIT.OK;
}

export const backupCommands: Record<string, (args: string[]) => Promise<number>> = { backup, restore };
