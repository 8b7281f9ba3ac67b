// The PostgreSQL dialect (dialect.ts): one pool, migrated under an advisory lock. Any number of instances
// may share the database: each read-decide-write is a retrying READ COMMITTED transaction taking row locks.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Column, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { type Db, type Dialect, driverError, migrationsFolder, type UniqueViolation } from '../dialect.js';
import { preparingClient } from './prepared-client.js';
import * as t from './schema.js';

/** Key of the session advisory lock migrations run under ("gatehouse" folded into an int8). */
const MIGRATION_LOCK = 7_165_063_318_245_923_173n;

/** Applies the pending migrations once however many instances start together (docs/architecture.md, "Persistence notes"). */
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
  const listed = /^Key \(([^)]*)\)=/.exec(err.detail ?? '')?.[1];
  const columns = listed?.split(',').map((c) => c.trim()) ?? [];
  return { table: err.table ?? '', columns };
}

const SOCKET_CODES = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'];
/** Errors of the socket (Node, above) and of postgres.js's connection handling. */
const CONNECTION_CODES = new Set([...SOCKET_CODES, 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);

/** SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Whether the server could not be reached (Dialect.unreachable): the connection failed, was lost, or the
 * server is shutting down. A statement's own failure (a constraint, a syntax error) is not this. */
export function postgresUnreachable(e: unknown): boolean {
  const found = driverError(e, (cur) => {
    const { code, syscall } = cur as { code?: unknown; syscall?: unknown };
    if (typeof code !== 'string') return null;
    // Class 08 is connection_exception; a failed connect() (a missing socket file) says the same.
    return CONNECTION_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08') || syscall === 'connect' ? true : null;
  });
  return found === true;
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

export const POOL_SIZE = 10;

/** Connects to `url` (postgres://...) and migrates the database; several instances starting at
 * once migrate it once. The pool is closed again when that fails. */
export async function openPostgresDialect(url: string): Promise<Dialect> {
  // Room beyond the cores: transactions hold connections while they wait for row locks (docs/architecture.md, "Persistence notes").
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
  return {
    t,
    db,
    write: (work) => work(db),
    transaction: (work) => withRetry(() => committed.transaction((tx) => work(tx))),
    snapshot: (work) => withRetry(() => snapshots.transaction((tx) => work(tx))),
    locked: (query, options) => (options?.skipLocked === true ? query.for('update', { skipLocked: true }) : query.for('update')),
    uniqueViolation,
    unreachable: postgresUnreachable,
    // Byte order, as SQLite's BINARY collation, whatever the database's collation (a linguistic
    // one would, for one, skip the dashes of UUIDs).
    binary: (column: Column) => sql`${column} collate "C"`,
    // An identity column numbers the rows itself.
    insertionOrder: () => ({}),
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      await pool.end({ timeout: 5 });
    },
  };
}
