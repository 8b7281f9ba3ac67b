// The seam between the Store, written once (store/*.ts), and the two SQL databases it runs on: how
// they differ (tables, transactions, row locks, errors, collation, insertion order, raw rows), and
// nothing for speed, which lives in fast/ (docs/architecture.md, "The fast path").
import { join } from 'node:path';
import { and, asc, type Column, desc, eq, getTableName, type SQL, sql } from 'drizzle-orm';
import type { LockConfig, PgDatabase } from 'drizzle-orm/pg-core';
import type { PostgresJsQueryResultHKT } from 'drizzle-orm/postgres-js';
import { folderAbove } from '../find-above.js';
import type { Tables } from './tables.js';

/** The query builder of the store, typed as PostgreSQL's: both dialects build the same SQL from the
 * calls the store uses (never SQLite's .run()/.get()/.all(), never .for(): see `locked`), and the
 * contract suite, run on both, holds them to it (docs/architecture.md, "Persistence"). */
export type Db = PgDatabase<PostgresJsQueryResultHKT>;

/** A select that can lock the rows it reads (PostgreSQL's FOR UPDATE). */
interface Lockable<Rows> extends PromiseLike<Rows> {
  for(strength: 'update', config?: LockConfig): PromiseLike<Rows>;
}

/** The table and columns of a unique constraint a write violated. */
export interface UniqueViolation {
  table: string;
  columns: string[];
}

export interface Dialect {
  t: Tables;
  /** Reads outside any transaction. Never writes through it (SQLite: a read-only connection). */
  db: Db;
  /** One autocommitted write statement (or a few that need no atomicity), outside a transaction. */
  write<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** A read-decide-write transaction that commits whole or rolls back on a throw, across connections
   * and processes (SQLite: BEGIN IMMEDIATE; PostgreSQL: READ COMMITTED with `locked` rows, run again
   * on a serialization failure or deadlock, so `work` must only touch the database). */
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /** A consistent read-only snapshot of several reads. */
  snapshot<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /** `query` with the rows it reads locked until the transaction ends (PostgreSQL: FOR UPDATE,
   * SKIP LOCKED with `skipLocked`). SQLite runs it as it is: its transaction already holds the
   * write lock of the whole database. */
  locked<Rows>(query: Lockable<Rows>, options?: { skipLocked?: boolean }): PromiseLike<Rows>;
  /** Whether `e` says the database could not be reached (refused, lost or shut down connections,
   * failed I/O, a lock held past the wait): the store answers these as SERVICE_UNAVAILABLE. */
  unreachable(e: unknown): boolean;
  /** The unique (or primary key) constraint `e` reports, or null for any other error. */
  uniqueViolation(e: unknown): UniqueViolation | null;
  /** A text column ordered by its bytes (SQLite's BINARY collation, whatever PostgreSQL's is). */
  binary(column: Column): SQL;
  /** The value of a new row's insertion-order column (tables.ts, Kit.insertionOrder), if the insert writes it. */
  insertionOrder<K extends string>(key: K, column: Column): Partial<Record<K, SQL>>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A dialect's migrations, in the repository (found from this module, see find-above.ts). */
export function migrationsFolder(dialect: 'sqlite' | 'postgres'): string {
  return join(folderAbove(import.meta.url, join('drizzle', dialect, 'meta', '_journal.json')), 'drizzle', dialect);
}

/** The first error in `e`'s chain of causes that `pick` recognises (drizzle wraps the driver's: DrizzleQueryError.cause). */
export function driverError<T>(e: unknown, pick: (error: Error) => T | null): T | null {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    const picked = pick(cur);
    if (picked !== null) return picked;
  }
  return null;
}

/** Whether `e` violated a unique constraint covering `column`. */
export function isUniqueViolation(dialect: Pick<Dialect, 'uniqueViolation'>, e: unknown, column: Column): boolean {
  const violation = dialect.uniqueViolation(e);
  return violation !== null && violation.table === getTableName(column.table) && violation.columns.includes(column.name);
}

/** The first row `query` reads, or null; with `lock`, locked until the transaction ends (Dialect.locked). */
export async function firstRow<Row>(d: Pick<Dialect, 'locked'>, query: Lockable<Row[]>, lock = false): Promise<Row | null> {
  const [row] = lock ? await d.locked(query) : await query;
  return row ?? null;
}

/** The first row `rows` brings, as `map` makes it a record; null when there is none. */
export async function firstAs<Row, R>(rows: PromiseLike<Row[]>, map: (row: Row) => R): Promise<R | null> {
  const [row] = await rows;
  return row === undefined ? null : map(row);
}

/** Whether `query` finds a row (it reads one at most). */
export const exists = async (query: { limit(n: number): PromiseLike<unknown[]> }): Promise<boolean> => (await query.limit(1)).length > 0;

/** The row `id` of the application's `table`. */
export const ofApplication = (table: { applicationId: Column; id: Column }, applicationId: string, id: string) => and(eq(table.applicationId, applicationId), eq(table.id, id));

/** Listings oldest (or newest) first by `at`, ties by the id's bytes, so both databases list alike. */
export const listOrder = (d: Pick<Dialect, 'binary'>) => ({
  oldestFirst: (at: Column, id: Column) => sql`${asc(at)}, ${asc(d.binary(id))}`,
  newestFirst: (at: Column, id: Column) => sql`${desc(at)}, ${desc(d.binary(id))}`,
});

/** Splits long id lists so one statement stays below either database's bound-parameter limit. */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
