// The PostgreSQL dialect (dialect.ts): a pool for writes and transactions, migrated under an
// advisory lock, and the read lane for the hot reads (read-lane.ts). Any number of instances may
// share the database: every read-decide-write runs in a retrying READ COMMITTED transaction that
// takes row locks (`locked`) before it decides.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Column, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { BanKey, MatchedBan } from '../../../domain/bans.js';
import {
  assertSelects,
  bansAmong,
  matchedBanFields,
  bindPlaceholders,
  type Db,
  type Dialect,
  driverError,
  liveMatches,
  type LockableSelect,
  migrationsFolder,
  type PlaceholderValues,
  positionalRows,
  type UniqueViolation,
} from '../dialect.js';
import { preparedRead } from './prepared-read.js';
import { requestBatch } from './request-batch.js';
import { preparingClient } from './prepared-client.js';
import { openReadLane } from './read-lane.js';
import * as t from './schema.js';
import { refreshStatistics } from './statistics.js';
import { postgresUnreachable } from './unreachable.js';

/** Key of the session advisory lock migrations run under ("gatehouse" folded into an int8). */
const MIGRATION_LOCK = 7_165_063_318_245_923_173n;

/**
 * Applies the pending migrations once however many instances start together: each takes the same
 * advisory lock on a connection of its own first, so one migrates while the others wait, and
 * those then find nothing left to apply.
 */
async function runMigrations(client: postgres.Sql): Promise<void> {
  const folder = migrationsFolder('postgres');
  const lockHolder = await client.reserve();
  try {
    await lockHolder.unsafe(`select pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await migrate(drizzle({ client }), { migrationsFolder: folder });
    } finally {
      await lockHolder.unsafe(`select pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    lockHolder.release();
  }
}

/** The driver's error behind `e`, by its SQLSTATE code. */
function pgError(e: unknown): { code: string; table: string | null; detail: string | null } | null {
  return driverError(e, (cur) => {
    const { code, table_name, detail } = cur as { code?: unknown; table_name?: unknown; detail?: unknown };
    if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return null;
    return { code, table: typeof table_name === 'string' ? table_name : null, detail: typeof detail === 'string' ? detail : null };
  });
}

/** PostgreSQL names the columns in the detail: "Key (application_id, username_key)=(...) already exists." */
function uniqueViolation(e: unknown): UniqueViolation | null {
  const err = pgError(e);
  if (err === null || err.code !== '23505') return null;
  const columns =
    /^Key \(([^)]*)\)=/
      .exec(err.detail ?? '')?.[1]
      ?.split(',')
      .map((c) => c.trim()) ?? [];
  return { table: err.table ?? '', columns };
}

/**
 * The postgres.js client behind a drizzle database or transaction: drizzle's postgres-js session
 * keeps it as `client` (drizzle-orm 0.45; the contract suite runs every compiled write through it).
 */
function clientOf(tx: Db): Pick<postgres.Sql, 'unsafe'> {
  const client = (tx as unknown as { session?: { client?: Pick<postgres.Sql, 'unsafe'> } }).session?.client;
  if (client === undefined) throw new Error('no postgres.js client behind this drizzle database');
  return client;
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

const POOL_SIZE = 10;

/**
 * Connects to `url` (postgres://...) and migrates the database; several instances starting at
 * once migrate it once. The pool is closed again when that fails.
 */
export async function openPostgresDialect(url: string): Promise<Dialect> {
  // The pool carries writes and transactions only (the hot reads have the read lane). A
  // transaction holds its connection while it waits for row locks (parallel logins of one user
  // queue on the user's row), so the pool keeps room beyond the cores: 10, postgres.js's default;
  // with the lane, 11 backends an instance. Fewer (4) measured no cheaper per login.
  const pool = postgres(url, { max: POOL_SIZE, onnotice: () => {} });
  try {
    await runMigrations(pool);
  } catch (e) {
    await pool.end({ timeout: 5 });
    throw e;
  }
  const db: Db = drizzle({ client: preparingClient(pool) });
  const committed = drizzle({ client: preparingClient(pool, READ_COMMITTED) });
  const snapshots = drizzle({ client: preparingClient(pool, READ_ONLY_SNAPSHOT) });
  const lane = openReadLane(url);
  // Writes built once (Dialect.allOrNone's shapes, Dialect.compile): the text rendered once, run
  // as a named statement prepared on each connection (prepared-client.ts).
  type CompiledStatement = { text: string; bind: (values: PlaceholderValues) => unknown[] };
  const pgDialect = new PgDialect();
  const render = (query: SQL): CompiledStatement => {
    const built = pgDialect.sqlToQuery(query);
    return { text: built.sql, bind: bindPlaceholders<unknown>(built) };
  };
  const run = (tx: Db, { text, bind }: CompiledStatement, values: PlaceholderValues) => clientOf(tx).unsafe(text, bind(values) as postgres.ParameterOrJSON<never>[]);
  const compiledSteps = new Map<string, CompiledStatement>();

  // One statement whatever the number of keys: the keys travel as two arrays, so the text (and
  // the prepared statement) stays the same. Each (type, value) pair is a probe of the
  // (application_id, type, value) unique index.
  const p = sql.placeholder;
  const bansMatching = preparedRead(lane, matchedBanFields(t.bans), bansAmong(db, t.bans, sql`(select * from unnest(${p('types')}::text[], ${p('values')}::text[]))`));

  return {
    t,
    db,
    write: (work) => work(db),
    transaction: (work) => withRetry(() => committed.transaction((tx) => work(tx))),
    allOrNone: async (shape, writes, values) => {
      let step = compiledSteps.get(shape);
      if (step === undefined) {
        // Each write a data-modifying CTE; the statement divides by the product of their row
        // counts, so a write that applied to no row fails it (division_by_zero) and undoes all.
        const steps = writes(db);
        const ctes = sql.join(
          steps.map((w, i) => sql`${sql.raw(`w${i}`)} as (${w.getSQL()})`),
          sql`, `,
        );
        const product = sql.join(
          steps.map((_, i) => sql.raw(`(select count(*) from w${i})`)),
          sql` * `,
        );
        compiledSteps.set(shape, (step = render(sql`with ${ctes} select 1 / (${product}) as applied`)));
      }
      try {
        await run(db, step, values);
        return true;
      } catch (e) {
        if (pgError(e)?.code === '22012') return false;
        throw e;
      }
    },
    compile: (build) => {
      let compiled: CompiledStatement | undefined;
      // On the transaction's own connection.
      return async (tx, values) => {
        await run(tx, (compiled ??= render(build(db).getSQL())), values);
      };
    },
    compileRead: <Row>(fields: Record<string, Column>, build: (db: Db) => LockableSelect<Row>, options?: { lock?: boolean }) => {
      let compiled: (CompiledStatement & { decode: (raw: readonly unknown[]) => Row }) | undefined;
      const compileOnce = () => {
        const select = build(db);
        const built = (options?.lock === true ? select.for('update') : select).toSQL();
        assertSelects(built.sql, fields);
        return { text: built.sql, bind: bindPlaceholders<unknown>(built), decode: positionalRows<Row>(fields) };
      };
      // On the transaction's own connection, as the pool's drizzle would run it (its values
      // mapped by the columns: positionalRows).
      return async (tx: Db, values: PlaceholderValues) => {
        const { text, bind, decode } = (compiled ??= compileOnce());
        const rows = await clientOf(tx)
          .unsafe(text, bind(values) as postgres.ParameterOrJSON<never>[])
          .values();
        return rows.map(decode);
      };
    },
    snapshot: (work) => withRetry(() => snapshots.transaction((tx) => work(tx))),
    locked: (query, options) => (options?.skipLocked === true ? query.for('update', { skipLocked: true }) : query.for('update')),
    uniqueViolation,
    unreachable: postgresUnreachable,
    // Byte order, as SQLite's BINARY collation, whatever the database's collation (a linguistic
    // one would, for one, skip the dashes of UUIDs).
    binary: (column: Column) => sql`${column} collate "C"`,
    // An identity column numbers the rows itself.
    insertionOrder: () => ({}),
    rows: async <Row>(tx: Db, query: SQL) => [...(await tx.execute(query))] as Row[],
    prepare: (fields, query) => preparedRead(lane, fields, query),
    prepareForRequests: (fields, keys, build, versioned) => requestBatch(lane, fields, keys, build, versioned),
    rowVersions: true,
    connections: POOL_SIZE,
    refreshStatistics: () => refreshStatistics(db),
    async matchingBans(applicationId: string, keys: readonly BanKey[], now: number): Promise<MatchedBan[]> {
      if (keys.length === 0) return [];
      return liveMatches(await bansMatching({ applicationId, types: keys.map((k) => k.type), values: keys.map((k) => k.value) }), now);
    },
    async ping() {
      // Both connections' ways: the pool's and the read lane's.
      await Promise.all([db.execute(sql`select 1`), lane.ping()]);
    },
    async close() {
      await Promise.all([pool.end({ timeout: 5 }), lane.end()]);
    },
  };
}
