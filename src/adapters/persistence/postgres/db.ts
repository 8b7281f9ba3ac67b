// Connecting to PostgreSQL, migrating under an advisory lock, and the few helpers every store area
// shares: the retrying transaction and the reading of driver errors.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { folderAbove } from '../../find-above.js';
import { type SQL, sql as fragment } from 'drizzle-orm';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import type { PostgresJsQueryResultHKT } from 'drizzle-orm/postgres-js';
import type { AnyPgColumn, PgDatabase } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { preparingClient } from './prepared-client.js';
import { openReadLane, type ReadLane } from './read-lane.js';

/** Both the database and a transaction handle: every query helper accepts either. */
export type Db = PgDatabase<PostgresJsQueryResultHKT>;

export interface Connection {
  /** The pool: writes, transactions and the reads that are not hot. */
  sql: postgres.Sql;
  /** One connection for the hot reads (read-lane.ts, hot-reads.ts). */
  lane: ReadLane;
  db: PostgresJsDatabase;
  /**
   * Runs `work` in one READ COMMITTED transaction. A read-decide-write that must exclude others
   * takes row locks (SELECT ... FOR UPDATE) or writes conditionally; anything `work` throws rolls
   * the transaction back. Serialization failures and deadlocks are retried a few times, so `work`
   * must be safe to run again (it only touches the database).
   */
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /** A consistent read-only snapshot (REPEATABLE READ, READ ONLY): never fails to serialize. */
  snapshot<T>(work: (tx: Db) => Promise<T>): Promise<T>;
}

/** The migrations of this dialect, in the repository (found from this module, see find-above.ts). */
function migrationsFolder(): string {
  return join(folderAbove(import.meta.url, join('drizzle', 'postgres', 'meta', '_journal.json')), 'drizzle', 'postgres');
}

/** Key of the session advisory lock migrations run under ("gatehouse" folded into an int8). */
const MIGRATION_LOCK = 7_165_063_318_245_923_173n;

/**
 * Applies the pending migrations once however many instances start together: each takes the same
 * advisory lock on a connection of its own first, so one migrates while the others wait, and
 * those then find nothing left to apply.
 */
async function runMigrations(sql: postgres.Sql): Promise<void> {
  const folder = migrationsFolder();
  const lockHolder = await sql.reserve();
  try {
    await lockHolder.unsafe(`select pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await migrate(drizzle({ client: sql }), { migrationsFolder: folder });
    } finally {
      await lockHolder.unsafe(`select pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    lockHolder.release();
  }
}

const MAX_ATTEMPTS = 5;

/** Whether a failed transaction may simply be run again: serialization_failure, deadlock_detected. */
function isRetryable(e: unknown): boolean {
  const code = pgError(e)?.code;
  return code === '40001' || code === '40P01';
}

async function withRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(e)) throw e;
      // Small, growing and jittered, so the transactions that collided do not collide again.
      await sleep(Math.random() * 10 * 2 ** attempt);
    }
  }
}

// Each kind of transaction has a drizzle instance whose client opens it with these in its BEGIN.
const READ_COMMITTED = 'isolation level read committed';
const READ_ONLY_SNAPSHOT = 'isolation level repeatable read read only';

/** Connects to `url` and migrates the database; the pool is closed again when that fails. */
export async function openConnection(url: string): Promise<Connection> {
  // The pool carries writes and transactions only (the hot reads have the read lane). A
  // transaction holds its connection while it waits for row locks (parallel logins of one user
  // queue on the user's row), so the pool keeps room beyond the cores: 10, postgres.js's default;
  // with the lane, 11 backends an instance. Fewer (4) measured no cheaper per login.
  const sql = postgres(url, { max: 10, onnotice: () => {} });
  try {
    await runMigrations(sql);
  } catch (e) {
    await sql.end({ timeout: 5 });
    throw e;
  }
  const db = drizzle({ client: preparingClient(sql) });
  const committed = drizzle({ client: preparingClient(sql, READ_COMMITTED) });
  const snapshots = drizzle({ client: preparingClient(sql, READ_ONLY_SNAPSHOT) });
  return {
    sql,
    lane: openReadLane(url),
    db,
    transaction: (work) => withRetry(() => committed.transaction((tx) => work(tx))),
    snapshot: (work) => withRetry(() => snapshots.transaction((tx) => work(tx))),
  };
}

/** The driver's error behind `e`: drizzle wraps it (DrizzleQueryError.cause). */
export function pgError(e: unknown): { code: string; constraint: string | null } | null {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    const { code, constraint_name } = cur as { code?: unknown; constraint_name?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      return { code, constraint: typeof constraint_name === 'string' ? constraint_name : null };
    }
  }
  return null;
}

/**
 * Whether `e` is a unique (or primary key) violation; with `constraint`, only one of that
 * constraint (PostgreSQL names it in the error).
 */
export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  const err = pgError(e);
  if (err === null || err.code !== '23505') return false;
  return constraint === undefined || err.constraint === constraint;
}

/** Splits long id lists so one statement stays far below PostgreSQL's 65535 bound parameters. */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Orders text by its bytes, as SQLite's BINARY collation does, whatever the database's collation
 * (a linguistic one would, for one, skip the dashes of UUIDs).
 */
export const binary = (column: AnyPgColumn): SQL => fragment`${column} collate "C"`;
