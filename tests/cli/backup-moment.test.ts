// The moment a backup copies (docs/deployment.md, "Backups"): while `atThatMoment` runs, the
// server's writes wait; a commit made after it does not reach the copy; a failure releases the
// write lock. Rows stand in for the server's (the backup knows no tables).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupSqliteFile } from '../../src/adapters/persistence/sqlite/backup.js';

let dir: string;
let server: Database.Database;
const rows = (db: Database.Database) => (db.prepare('SELECT x FROM t ORDER BY x').all() as Array<{ x: number }>).map((r) => r.x);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-backup-moment-'));
  // The server's connection, told not to wait for the lock, so that waiting shows as SQLITE_BUSY.
  server = new Database(join(dir, 'gatehouse.db'), { timeout: 0 });
  server.pragma('journal_mode = WAL');
  server.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)');
});

afterEach(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('backupSqliteFile', () => {
  it('holds the server’s writes while atThatMoment runs, and copies the database as of that moment', async () => {
    const target = join(dir, 'copy.db');
    let refused: unknown = null;
    const { pages } = await backupSqliteFile(join(dir, 'gatehouse.db'), target, async () => {
      try {
        server.exec('INSERT INTO t VALUES (2)');
      } catch (error) {
        refused = error;
      }
      // Runs once the lock is released and before the backup copies its first page.
      setImmediate(() => server.exec('INSERT INTO t VALUES (3)'));
    });
    expect((refused as { code?: string } | null)?.code).toBe('SQLITE_BUSY');
    expect(pages).toBeGreaterThan(0);
    expect(rows(server)).toEqual([1, 3]);
    const copy = new Database(target, { readonly: true });
    try {
      expect(rows(copy)).toEqual([1]);
    } finally {
      copy.close();
    }
  });

  it('releases the write lock and leaves no copy when atThatMoment fails', async () => {
    const target = join(dir, 'copy.db');
    await expect(
      backupSqliteFile(join(dir, 'gatehouse.db'), target, async () => {
        throw new Error('pinning failed');
      }),
    ).rejects.toThrow('pinning failed');
    server.exec('INSERT INTO t VALUES (2)');
    expect(rows(server)).toEqual([1, 2]);
    expect(() => new Database(target, { readonly: true, fileMustExist: true })).toThrow();
  });
});
