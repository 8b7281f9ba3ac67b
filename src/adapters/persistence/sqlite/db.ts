// Opening the SQLite database and the few helpers every store area shares.
import { join } from 'node:path';
import { folderAbove } from '../../find-above.js';
import Database from 'better-sqlite3';
import type { RunResult } from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { type HotReads, prepareHotReads } from './hot-reads.js';

/** Both the database and a transaction handle: every query helper accepts either. */
export type Db = BaseSQLiteDatabase<'sync', RunResult>;

export interface Connection {
  client: Database.Database;
  db: Db;
  /** The integration requests' reads, prepared once on this connection (hot-reads.ts). */
  reads: HotReads;
  /**
   * Runs `work` in one BEGIN IMMEDIATE transaction: the write lock is taken before the first read,
   * so a read-decide-write holds against other connections and processes. `work` must be
   * synchronous; anything it throws rolls the transaction back.
   */
  immediate<T>(work: (tx: Db) => T): T;
}

/** The migrations of this dialect, in the repository (found from this module, see find-above.ts). */
function migrationsFolder(): string {
  return join(folderAbove(import.meta.url, join('drizzle', 'sqlite', 'meta', '_journal.json')), 'drizzle', 'sqlite');
}

function runMigrations(db: Parameters<typeof migrate>[0]): void {
  const folder = migrationsFolder();
  try {
    migrate(db, { migrationsFolder: folder });
  } catch {
    // drizzle reads the applied migrations before its BEGIN, so two processes opening a fresh
    // file together may both try to apply them and the slower one fails. A second pass sees
    // the other's committed work and applies nothing; a real failure fails again and is thrown.
    migrate(db, { migrationsFolder: folder });
  }
}

const BUSY_RETRY_MS = 10_000;

function withBusyRetry<T>(work: () => T): T {
  const giveUpAt = Date.now() + BUSY_RETRY_MS;
  for (;;) {
    try {
      return work();
    } catch (e) {
      if ((e as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > giveUpAt) throw e;
      // Start-up only, so a synchronous pause is fine.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

export function openConnection(path: string): Connection {
  const client = new Database(path);
  // busy_timeout first: it makes every later statement, the switch to WAL included, wait for a
  // lock another process holds instead of failing at once with SQLITE_BUSY.
  client.pragma('busy_timeout = 5000');
  // WAL lets readers proceed beside the single writer. Switching a fresh file to it needs a lock
  // that processes opening the file together contend for, so it is retried for a bounded time.
  withBusyRetry(() => client.pragma('journal_mode = WAL'));
  client.pragma('foreign_keys = ON');
  client.pragma('synchronous = NORMAL');
  const db = drizzle({ client });
  let reads: HotReads;
  try {
    runMigrations(db);
    // After the migrations: the statements compile against the tables they create.
    reads = prepareHotReads(db, client);
  } catch (e) {
    client.close();
    throw e;
  }
  return {
    client,
    db,
    reads,
    immediate: (work) => db.transaction((tx) => work(tx), { behavior: 'immediate' }),
  };
}

/** The driver's error behind `e`: drizzle may wrap it (DrizzleQueryError.cause). */
function sqliteError(e: unknown): { code: string; message: string } | null {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return { code, message: cur.message };
  }
  return null;
}

/**
 * Whether `e` is a unique (or primary key) violation; with `column`, only one naming that column
 * (SQLite reports "UNIQUE constraint failed: table.col, ...").
 */
export function isUniqueViolation(e: unknown, column?: string): boolean {
  const err = sqliteError(e);
  if (err === null || (err.code !== 'SQLITE_CONSTRAINT_UNIQUE' && err.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY')) return false;
  return column === undefined || err.message.includes(column);
}

/** Splits long id lists so an IN (...) never exceeds SQLite's bound-variable limit. */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
