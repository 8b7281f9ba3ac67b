// The seam between the Store, written once (store/*.ts), and the two SQL databases it runs on.
// A dialect says how to open and migrate its database, how to run a read-decide-write
// transaction, how to tell a unique violation, and how to serve its tuned hot reads; everything
// else is the shared store's. Where the databases really differ (row locks, collation, insertion
// order, raw rows) the difference is one function here. See docs/architecture.md.
import { join } from 'node:path';
import { and, Column, eq, getTableName, is, Param, Placeholder, type SQL, sql, type SQLWrapper, type Table } from 'drizzle-orm';
import type { LockConfig, PgDatabase } from 'drizzle-orm/pg-core';
import type { PostgresJsQueryResultHKT } from 'drizzle-orm/postgres-js';
import { type BanKey, type BanType, isBanLive, type MatchedBan } from '../../domain/bans.js';
import { folderAbove } from '../find-above.js';
import type { Tables } from './tables.js';

/**
 * The query builder the store writes its queries with. Both dialects' drizzle databases build the
 * same SQL from the same calls (select, insert, update, delete, returning, onConflict..., joins),
 * and awaiting a query gives its rows in both; the store is typed against PostgreSQL's and uses
 * only that common part (never SQLite's .run()/.get()/.all(), never .for(): see `locked`).
 * SQLite's database and tables stand behind these types (sqlite/dialect.ts); the contract suite,
 * run on both, is what holds them to it.
 */
export type Db = PgDatabase<PostgresJsQueryResultHKT>;

/** A select that can lock the rows it reads (PostgreSQL's FOR UPDATE). */
export interface Lockable<Rows> extends PromiseLike<Rows> {
  for(strength: 'update', config?: LockConfig): PromiseLike<Rows>;
}

/** Placeholder values by name, for statements built once (hot reads, all-or-none steps). */
export type PlaceholderValues = Readonly<Record<string, unknown>>;

/** A write as drizzle builds it (insert, update, delete), before it runs. */
export type BuiltWrite = SQLWrapper & { toSQL(): { sql: string; params: unknown[] } };

/** A write that returns a row for each row it changed (an insert or update with `.returning()`). */
export type AppliedWrite = BuiltWrite;

/** A write built once, run with its placeholders' values in a transaction or a `write` (Dialect.compile). */
export type CompiledWrite = (tx: Db, values: PlaceholderValues) => Promise<void>;

/** A read built once, run with its placeholders' values in a transaction (Dialect.compileRead): its rows. */
export type CompiledRead<Row> = (tx: Db, values: PlaceholderValues) => Promise<Row[]>;

/** What a prepared hot read takes: its placeholders' values by name. */
export type ReadValues = Record<string, string | number>;

/** A drizzle select with sql.placeholder(name) for what varies, as the hot reads build them. */
export interface BuiltSelect<Row> {
  toSQL(): { sql: string; params: unknown[] };
  readonly _: { readonly result: Row[] };
}

/**
 * The requests a hot read answers, as rows of their keys (Dialect.prepareForRequests): a FROM
 * source with a column per key, and what the select puts before its fields to tell the requests'
 * rows apart (nothing where a statement answers one request).
 */
export interface RequestRows {
  source: SQL;
  key(name: string): SQL;
  tag: Record<string, SQL>;
  /**
   * Where the dialect's rows carry versions (Dialect.rowVersions), the version of each row asked
   * for by name, to select after the tag (null where a left join found no row); otherwise empty.
   */
  versions: Record<string, SQL>;
}

/** The column of key `name` in RequestRows.source, as each dialect names it. */
export const requestKey = (name: string): SQL => sql.raw(`"requests"."${name}"`);

/** A built select that can also lock its rows (PostgreSQL's FOR UPDATE; Dialect.compileRead). */
export interface LockableSelect<Row> extends BuiltSelect<Row> {
  for(strength: 'update'): { toSQL(): { sql: string; params: unknown[] } };
}

/**
 * The parameters of a built read as a function of its placeholders' values, by name; its other
 * parameters (a LIMIT) stay as built, so the statement text never varies.
 */
export function bindPlaceholders<V>({ sql, params }: { sql: string; params: unknown[] }): (values: Readonly<Record<string, V>>) => V[] {
  type Slot = { name: string; encode: ((value: V) => V) | null } | { value: V };
  const slots = params.map((p): Slot => {
    if (is(p, Placeholder)) return { name: p.name, encode: null };
    // A value written to a column (insert values, update set) is the column's to encode.
    if (is(p, Param) && is(p.value, Placeholder)) {
      const { encoder } = p;
      return { name: p.value.name, encode: (value) => (value === null ? value : (encoder.mapToDriverValue(value) as V)) };
    }
    return { value: p as V };
  });
  return (values) =>
    slots.map((slot) => {
      if ('value' in slot) return slot.value;
      const value = values[slot.name];
      if (value === undefined) throw new Error(`no value for placeholder ${slot.name} of: ${sql}`);
      return slot.encode === null ? value : slot.encode(value);
    });
}

/**
 * Throws unless the rendered `sql` selects exactly `fields`' columns, in order (after `leading`,
 * the rendered text of what a read selects before them): a prepared hot read
 * decodes its rows by position (each dialect's prepared reads), so the two cannot drift apart.
 * drizzle names a column alone from one table and with its table when the select joins others.
 */
export function assertSelects(sql: string, fields: Record<string, Column>, leading = ''): void {
  const columns = Object.values(fields);
  const bare = `select ${leading}${columns.map((c) => `"${c.name}"`).join(', ')} from `;
  const qualified = `select ${leading}${columns.map((c) => `"${getTableName(c.table)}"."${c.name}"`).join(', ')} from `;
  if (!sql.startsWith(bare) && !sql.startsWith(qualified)) throw new Error(`prepared read selects other columns than its decoder: ${sql}`);
}

/**
 * Rows as drizzle's select of `fields` returns them, from the driver's arrays of values in the
 * fields' order (assertSelects): each value through its column's mapFromDriverValue, as drizzle
 * maps it, but for nulls and the columns that take the driver's value as it is.
 */
export function positionalRows<Row>(fields: Record<string, Column>): (raw: readonly unknown[]) => Row {
  const keys = Object.keys(fields);
  const identity = Column.prototype.mapFromDriverValue;
  const mappers = Object.values(fields).map((c) => (c.mapFromDriverValue === identity ? null : c));
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const v = raw[i];
      const mapper = mappers[i];
      row[keys[i]!] = v === null || !mapper ? v : mapper.mapFromDriverValue(v);
    }
    // The columns and their decoding are the select's own, so this is the row type it infers.
    return row as Row;
  };
}

/** The table and columns of a unique constraint a write violated. */
export interface UniqueViolation {
  table: string;
  columns: string[];
}

export interface Dialect {
  /** The tables, as this dialect declares them (tables.ts). */
  t: Tables;
  /** Reads outside any transaction. Never writes through it (SQLite: a read-only connection). */
  db: Db;
  /** One autocommitted write statement (or a few that need no atomicity), outside a transaction. */
  write<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /**
   * A read-decide-write transaction: everything `work` does commits together, and anything it
   * throws rolls it all back. It holds against other connections and processes: SQLite takes the
   * write lock first (BEGIN IMMEDIATE, one transaction at a time in the process); PostgreSQL runs
   * READ COMMITTED and `work` takes row locks with `locked`, and is run again on a serialization
   * failure or deadlock, so it must only touch the database.
   */
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * Writes that apply all or none, as one atomic step: each returns one row when it applied (its
   * `returning`), and if any returns none, none stays written. Whether they applied. PostgreSQL
   * runs them as one statement, so their row locks last only while it runs (never across a round
   * trip); SQLite, in a transaction on its writer. For counters written by compare-and-set
   * (store/counter-swap.ts).
   *
   * The writes are built once per `shape`, with sql.placeholder(name) for everything that varies,
   * and each step binds `values` to them: a login makes several such steps, and building a query
   * with drizzle is dear on a login's path (docs/performance-log.md, "figures from comments").
   * So one shape always builds the same writes; shapes are few, named by the code building them.
   */
  allOrNone(shape: string, writes: (db: Db) => AppliedWrite[], values: PlaceholderValues): Promise<boolean>;
  /** A consistent read-only snapshot of several reads. */
  snapshot<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * `query` with the rows it reads locked until the transaction ends (PostgreSQL: FOR UPDATE,
   * SKIP LOCKED with `skipLocked`). SQLite runs it as it is: its transaction already holds the
   * write lock of the whole database.
   */
  locked<Rows>(query: Lockable<Rows>, options?: { skipLocked?: boolean }): PromiseLike<Rows>;
  /**
   * Whether `e` says the database could not be reached (refused, lost or shut down connections,
   * failed I/O, a lock held past the wait): the store answers these as SERVICE_UNAVAILABLE.
   */
  unreachable(e: unknown): boolean;
  /** The unique (or primary key) constraint `e` reports, or null for any other error. */
  uniqueViolation(e: unknown): UniqueViolation | null;
  /** A text column ordered by its bytes (SQLite's BINARY collation, whatever PostgreSQL's is). */
  binary(column: Column): SQL;
  /** The value of a new row's insertion-order column (tables.ts, Kit.insertionOrder), if the insert writes it. */
  insertionOrder<K extends string>(key: K, column: Column): Partial<Record<K, SQL>>;
  /** Rows of a raw SQL query (the overview's aggregates) with the driver's own value types. */
  rows<Row>(tx: Db, query: SQL): Promise<Row[]>;
  /**
   * A write the hot paths make (a login's session, its event, its day's count) built once, with
   * sql.placeholder(name) for everything that varies, on its first run; each run binds the values
   * and runs it on `tx`'s connection (SQLite: the writer, so only inside `transaction` or
   * `write`). Building a query with drizzle is dear on a login's path
   * (docs/performance-log.md, "figures from comments").
   */
  compile(build: (db: Db) => BuiltWrite): CompiledWrite;
  /**
   * A read the hot paths make inside their transactions (a login's user, ban, devices and live
   * sessions), built once as `compile` builds writes; `query` must select exactly `fields`, in
   * order. With `lock`, the rows it reads stay locked until the transaction ends (as `locked`).
   */
  compileRead<Row>(fields: Record<string, Column>, build: (db: Db) => LockableSelect<Row>, options?: { lock?: boolean }): CompiledRead<Row>;
  /** Prepares a hot read once (hot-reads.ts): `query` must select exactly `fields`, in order. */
  prepare<Row>(fields: Record<string, Column>, query: BuiltSelect<Row>): (values: ReadValues) => Promise<Row[]>;
  /**
   * Prepares a hot read that many requests may share (hot-reads.ts, the application a request
   * names and its session): `build(requests)` selects `requests.tag`, `requests.versions` and
   * then exactly `fields`, from `requests.source` joined to the tables on `requests.key(name)` for
   * each of `keys`; `versioned` names the tables whose rows' versions it selects. Each call
   * answers one request. PostgreSQL answers the calls made in one turn of the event loop with one
   * statement (postgres/request-batch.ts); SQLite runs one statement a call.
   */
  prepareForRequests<Row>(
    fields: Record<string, Column>,
    keys: readonly string[],
    build: (requests: RequestRows) => BuiltSelect<unknown>,
    versioned?: Readonly<Record<string, Table>>,
  ): (values: Readonly<Record<string, string>>) => Promise<Row[]>;
  /**
   * Whether rows carry a version that every change to a row changes (RequestRows.versions), so a
   * read may stand for a wider one it made before while the versions are the same
   * (remembered-access.ts). PostgreSQL: yes, the row's xmin. SQLite: no; its reads are remembered
   * whole while the file is unchanged (sqlite/unchanged-reads.ts).
   */
  rowVersions: boolean;
  /**
   * The live bans of the application among `keys` (expired ones never match): every
   * authenticated request asks, so each dialect tunes it.
   */
  matchingBans(applicationId: string, keys: readonly BanKey[], now: number): Promise<MatchedBan[]>;
  /**
   * Brings the planner's statistics up to date for the tables that changed much since they were
   * last gathered; the names of the tables it refreshed. (PostgreSQL: ANALYZE, see
   * postgres/statistics.ts; SQLite: nothing, its planner prefers a unique key's full match
   * without statistics, and none are ever gathered.)
   */
  refreshStatistics(): Promise<string[]>;
  /** Connections that carry transactions and writes (SQLite: its one writer; PostgreSQL: the pool). */
  connections: number;
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

export const matchedBanFields = (bans: Tables['bans']) => ({
  type: bans.type,
  value: bans.value,
  id: bans.id,
  propagatedFrom: bans.propagatedFrom,
  expiresAt: bans.expiresAt,
});

/**
 * The select behind Dialect.matchingBans: `keys` lists the (type, value) rows in each dialect's
 * way, and `applicationId` is a placeholder. Expired bans are in the answer (at most one row a
 * key, bans_app_type_value_uq) and liveMatches drops them: without the time in it, the answer
 * stays the same until the bans change, so SQLite can remember it (sqlite/unchanged-reads.ts).
 */
export function bansAmong(db: Db, bans: Tables['bans'], keys: SQL) {
  return db
    .select(matchedBanFields(bans))
    .from(bans)
    .where(and(eq(bans.applicationId, sql.placeholder('applicationId')), sql`(${bans.type}, ${bans.value}) in ${keys}`));
}

/** The bans among bansAmong's rows that still hold at `now` (an expired propagated IP ban does not). */
export function liveMatches(rows: ReadonlyArray<{ type: string; value: string; id: string; propagatedFrom: string | null; expiresAt: number | null }>, now: number): MatchedBan[] {
  const live: MatchedBan[] = [];
  // The type column only ever holds BanType values written from typed records.
  for (const ban of rows) if (isBanLive(ban, now)) live.push({ ...ban, type: ban.type as BanType });
  return live;
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

/** The row `id` of the application's `table`. */
export const ofApplication = (table: { applicationId: Column; id: Column }, applicationId: string, id: string) => and(eq(table.applicationId, applicationId), eq(table.id, id));

/** Splits long id lists so one statement stays below either database's bound-parameter limit. */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
