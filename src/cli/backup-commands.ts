// `gatehouse backup <file>` and `gatehouse restore <file>` for the embedded setup (SQLite and the local
// blobs folder; docs/deployment.md, "Backups"): <file> is an SQLite database and <file>.blobs/ the file
// contents. PostgreSQL and S3 are backed up with their own tools.
import { chmod, copyFile, constants, link, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
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

/** Blob keys under `root`, as the local blob store lists them: writes in progress (.tmp) are no one's
 * yet, and a folder the running server removes meanwhile (an emptied staging folder) is skipped rather
 * than failing the walk. */
async function blobKeys(root: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of createLocalBlobStore({ root }).list('')) keys.push(key);
  return keys;
}

/** Puts the file `from` at `to`. */
type Place = (from: string, to: string) => Promise<void>;

/** A copy-on-write clone where the file system offers one, else a plain copy. */
const copy: Place = (from, to) => copyFile(from, to, constants.COPYFILE_FICLONE);

/** A hard link, so that a later deletion by the server unlinks only its own name; quick (no bytes move),
 * as pinning runs while the server's writes wait (see backup). A copy across file systems. */
const pin: Place = async (from, to) => {
  try {
    await link(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copy(from, to);
  }
};

/** Places the keys not yet in `to`; a blob deleted meanwhile is skipped. How many were placed. */
async function copyBlobs(from: string, to: string, keys: string[], place: Place = copy): Promise<number> {
  let copied = 0;
  for (const key of keys) {
    const target = join(to, ...key.split('/'));
    if (existsSync(target)) continue;
    await mkdir(dirname(target), { recursive: true });
    try {
      await place(join(from, ...key.split('/')), target);
      copied += 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return copied;
}

/** Pins into `pins` the blobs under `root` that the copy `copied` lacks. */
async function pinNewBlobs(root: string, copied: string, pins: string): Promise<void> {
  const fresh = (await blobKeys(root)).filter((key) => !existsSync(join(copied, ...key.split('/'))));
  await copyBlobs(root, pins, fresh, pin);
}

/** The blobs the rows of the database copy refer to that are not in the blob copy; the check also opens the copy. */
async function missingBlobs(database: string, blobs: string): Promise<string[]> {
  const store = openSqliteStore({ path: database });
  try {
    return [...(await store.referencedBlobKeys())].filter((key) => !existsSync(join(blobs, ...key.split('/'))));
  } finally {
    await store.close();
  }
}

/** The master key the data folder's database was set up with, or null where none is known. */
function knownMasterKey(config: Config): Buffer | null {
  if (config.masterKey !== null) return config.masterKey;
  const path = join(config.dataDir, MASTER_KEY_FILE);
  return existsSync(path) ? decodeMasterKey(readFileSync(path, 'utf8')) : null;
}

/** The copy is whole while the server writes: the database is copied at a moment the server's writes
 * wait, and every blob existing then is in the first pass's copy or pinned before the writes go on, so
 * each blob a copied row refers to is kept (docs/deployment.md, "Backups"). */
async function backup(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('backup needs one <file>');
  const config = readConfig();
  embeddedOnly(config, 'backup');
  assertDatabaseExists(config, false, false);
  const file = resolve(positionals[0] as string);
  if (existsSync(file) || existsSync(blobsBeside(file))) throw new CliError(EXIT.FAILURE, `${file} or ${blobsBeside(file)} exists already: choose a new name`);
  // A new folder is owner-only, like the data folder; the files in it are too (see below).
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const partialDb = `${file}.partial`;
  const partialBlobs = `${blobsBeside(file)}.partial`;
  await rm(partialDb, { force: true });
  await rm(partialBlobs, { recursive: true, force: true });
  const blobRoot = join(config.dataDir, BLOBS_FOLDER);
  // Beside blobs/, on its file system, so that pins are hard links.
  const pins = await mkdtemp(join(config.dataDir, 'backup-pins-'));
  try {
    await mkdir(partialBlobs, { mode: 0o700 });
    // Most bytes move here, while the server writes freely.
    const first = await copyBlobs(blobRoot, partialBlobs, await blobKeys(blobRoot));
    const { pages } = await backupSqliteFile(join(config.dataDir, SQLITE_FILE), partialDb, () => pinNewBlobs(blobRoot, partialBlobs, pins));
    const later = await copyBlobs(pins, partialBlobs, await blobKeys(pins));
    // None unless something other than the server deleted files under blobs/.
    const missing = await missingBlobs(partialDb, partialBlobs);
    if (missing.length > 0) note(`note: ${missing.length} file contents were missing from ${blobRoot}; their rows are in the backup without contents`);
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
  } finally {
    await rm(pins, { recursive: true, force: true });
  }
}

/** Replaces the data folder's database and blobs with a backup's, the server stopped. What was there is
 * moved aside, not deleted. The backup must open with the configured master key. */
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
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });

  // The copy is checked before anything is replaced: it opens, migrates, and its secrets open with this key.
  const incoming = `${dbPath}.restoring`;
  await rm(incoming, { force: true });
  await copyFile(file, incoming);
  // A copy takes its source's mode; the live database is owner-only (and so its -wal and -shm).
  await chmod(incoming, 0o600);
  const store = openSqliteStore({ path: incoming });
  try {
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
