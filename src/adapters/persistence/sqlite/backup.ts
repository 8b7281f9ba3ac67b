// SQLite's online backup, on connections of its own: a copy consistent as of one moment, taken
// while the server runs (docs/deployment.md, "Backups": why cp is not one).
import { closeSync, openSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';

/** Every remaining page in one step: one read transaction, so one snapshot (WAL readers do not block writers). */
const ALL_PAGES = 0x7fffffff;

/** How long the backup waits for a server's write transaction to end before it takes the write lock. */
const WRITE_LOCK_WAIT_MS = 5000;

/** Copies `source` into the new file `target` as of one moment, running `atThatMoment` while no commit
 * can follow it (a read snapshot under another connection's write lock), so a blob the copy refers to
 * can be pinned first. Writes wait meanwhile, so it must be short (docs/deployment.md, "Backups"). */
export async function backupSqliteFile(source: string, target: string, atThatMoment: () => Promise<void>): Promise<{ pages: number }> {
  // Owner-only like the live database: SQLite writes into an empty file it finds, keeping its mode.
  closeSync(openSync(target, 'wx', 0o600));
  try {
    return await copyAtOneMoment(source, target, atThatMoment);
  } catch (error) {
    rmSync(target, { force: true });
    throw error;
  }
}

async function copyAtOneMoment(source: string, target: string, atThatMoment: () => Promise<void>): Promise<{ pages: number }> {
  const reader = new Database(source, { readonly: true, fileMustExist: true });
  const writer = new Database(source, { fileMustExist: true, timeout: WRITE_LOCK_WAIT_MS });
  try {
    writer.exec('BEGIN IMMEDIATE');
    try {
      reader.exec('BEGIN');
      // A WAL read transaction takes its snapshot at its first read, not at BEGIN.
      reader.prepare('SELECT count(*) FROM sqlite_schema').get();
      await atThatMoment();
    } finally {
      writer.exec('ROLLBACK');
    }
    // A backup from a connection in a read transaction copies that transaction's snapshot. The
    // first step only opens the backup; the progress callback sizes the next one. A copy in
    // small steps would restart whenever the server wrote in between, and might never end.
    const result = await reader.backup(target, { progress: () => ALL_PAGES });
    return { pages: result.totalPages };
  } finally {
    if (reader.inTransaction) reader.exec('COMMIT');
    reader.close();
    writer.close();
  }
}

/** True when another connection has the database open (a running server): leaving WAL mode needs
 * the database to itself. Used before a restore replaces the file; left in WAL mode either way. */
export function sqliteFileInUse(path: string): boolean {
  const db = new Database(path, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('journal_mode = DELETE');
    db.pragma('journal_mode = WAL');
    return false;
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return true;
    throw error;
  } finally {
    db.close();
  }
}
