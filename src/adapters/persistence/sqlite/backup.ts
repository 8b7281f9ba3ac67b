// SQLite's online backup, on a connection of its own (docs/deployment.md, "Backups"): a copy consistent as of
// one moment, taken while the server runs. Copying gatehouse.db with cp is not a backup: recent
// commits live in the -wal file beside it until a checkpoint.
import Database from 'better-sqlite3';

/** Every remaining page in one step: one read transaction, so one snapshot (WAL readers do not block writers). */
const ALL_PAGES = 0x7fffffff;

/** Copies the database at `source` into the new file `target`, as of the moment the copy starts. */
export async function backupSqliteFile(source: string, target: string): Promise<{ pages: number }> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    // The first step only opens the backup; the progress callback sizes the next one. A copy in
    // small steps would restart whenever the server wrote in between, and might never end.
    const result = await db.backup(target, { progress: () => ALL_PAGES });
    return { pages: result.totalPages };
  } finally {
    db.close();
  }
}

/**
 * True when another connection has the database open (a running server): leaving WAL mode needs
 * the database to itself. Used before a restore replaces the file; left in WAL mode either way.
 */
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
