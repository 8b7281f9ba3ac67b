// The SQLite dialect (dialect.ts): a writer, a reader and a snapshot connection (docs/architecture.md, "Persistence notes").
import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { type Column, type SQL, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { type Db, type Dialect, driverError, migrationsFolder, type UniqueViolation } from '../dialect.js';
import type { Tables } from '../tables.js';
import { serialLanes } from '../serial-lanes.js';
import * as schema from './schema.js';

function runMigrations(db: Parameters<typeof migrate>[0]): void {
  const folder = migrationsFolder('sqlite');
  try {
    migrate(db, { migrationsFolder: folder });
  } catch {
    // Once more: processes migrating a fresh file together (docs/architecture.md, "Persistence notes").
    migrate(db, { migrationsFolder: folder });
  }
}

/** Migrates with foreign keys off, as SQLite's table rebuild needs: the migrator's transaction
 * ignores the PRAGMA a rebuild carries, and dropping the old table would cascade to every row that
 * refers to it (docs/architecture.md, "Persistence notes"). Every reference must hold afterwards. */
function migrateWithoutForeignKeys(client: Database.Database): void {
  client.pragma('foreign_keys = OFF');
  runMigrations(drizzle({ client }));
  const broken = client.pragma('foreign_key_check') as unknown[];
  if (broken.length > 0) throw new Error(`the migrations left ${broken.length} rows referring to rows that are not there`);
  client.pragma('foreign_keys = ON');
}

/** Whether the file could not be read or written (Dialect.unreachable): failed I/O (with its extended
 * codes), a file that cannot be opened, or a lock another process held past busy_timeout. */
export const sqliteUnreachable = (e: unknown): boolean =>
  driverError(e, ({ code }: Error & { code?: unknown }) => (typeof code === 'string' && ['SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_BUSY'].some((p) => code.startsWith(p)) ? true : null)) === true;

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

function openWriter(path: string): Database.Database {
  // Created readable by its owner only, before SQLite does (SQLite gives its -wal and -shm files
  // the database file's permissions): it holds every digest and sealed secret.
  if (path !== ':memory:') closeSync(openSync(path, 'a', 0o600));
  const client = new Database(path);
  // busy_timeout first, then WAL, retried (docs/architecture.md, "Persistence notes").
  client.pragma('busy_timeout = 5000');
  withBusyRetry(() => client.pragma('journal_mode = WAL'));
  client.pragma('synchronous = NORMAL');
  try {
    migrateWithoutForeignKeys(client);
  } catch (e) {
    client.close();
    throw e;
  }
  return client;
}

function openReader(path: string): Database.Database {
  const client = new Database(path, { readonly: true, fileMustExist: true });
  client.pragma('busy_timeout = 5000');
  return client;
}

/** Turns on SQLite's connections in this process: a database file's writer takes one lane, shared by
 * every dialect open on it (docs/architecture.md, "Persistence notes"); a dialect's snapshots another. */
const lanes = serialLanes();
let opened = 0;

/** Runs `work` inside BEGIN `mode` ... COMMIT on `client`, rolling back whatever it throws. */
async function inTransaction<T>(client: Database.Database, mode: 'IMMEDIATE' | 'DEFERRED', db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  client.exec(`BEGIN ${mode}`);
  try {
    const result = await work(db);
    client.exec('COMMIT');
    return result;
  } catch (e) {
    if (client.inTransaction) client.exec('ROLLBACK');
    throw e;
  }
}

/** SQLite names the columns: "UNIQUE constraint failed: users.application_id, users.username_key". */
function uniqueViolation(e: unknown): UniqueViolation | null {
  const err = driverError(e, ({ code, message }: Error & { code?: unknown }) => (typeof code === 'string' && code.startsWith('SQLITE_') ? { code, message } : null));
  if (err === null || (err.code !== 'SQLITE_CONSTRAINT_UNIQUE' && err.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY')) return null;
  const list = err.message.split('failed: ')[1] ?? '';
  const qualified = list.split(',').map((c) => c.trim().split('.'));
  return { table: qualified[0]?.[0] ?? '', columns: qualified.map((parts) => parts[1] ?? '') };
}

export interface SqliteDialectOptions {
  /** Each connection as drizzle is given it (the fast path keeps its compiled statements: fast/sqlite-statement-cache.ts). */
  client?: (client: Database.Database) => Database.Database;
}

/** Opens (creating and migrating as needed) the database at `path`, or an in-memory one for
 * ':memory:' (one connection serves both sides there; it is for tests). */
export function openSqliteDialect(path: string, options: SqliteDialectOptions = {}): Dialect {
  const given = options.client ?? ((client: Database.Database) => client);
  const writer = openWriter(path);
  const readers: Database.Database[] = [];
  try {
    for (let i = 0; i < 2; i++) readers.push(path === ':memory:' ? writer : openReader(path));
  } catch (e) {
    for (const connection of [...readers, writer]) if (connection.open) connection.close();
    throw e;
  }
  const [reader, snapshotReader] = readers as [Database.Database, Database.Database];
  // The tables and databases are SQLite's, behind the store's PostgreSQL-typed view (dialect.ts).
  const t = schema as unknown as Tables;
  const writeDb = drizzle({ client: given(writer) }) as unknown as Db;
  const readDb = drizzle({ client: given(reader) }) as unknown as Db;
  const snapshotDb = drizzle({ client: given(snapshotReader) }) as unknown as Db;
  // Each ':memory:' connection is a database of its own, so its writer's lane is its dialect's.
  const own = `dialect ${++opened}`;
  const writerLane = path === ':memory:' ? own : resolve(path);
  const oneWriter = <T>(work: () => Promise<T>) => lanes(writerLane, work);
  const oneSnapshot = snapshotReader === writer ? oneWriter : <T>(work: () => Promise<T>) => lanes(`${own} snapshots`, work);
  return {
    t,
    db: readDb,
    write: (work) => oneWriter(() => work(writeDb)),
    transaction: (work) => oneWriter(() => inTransaction(writer, 'IMMEDIATE', writeDb, work)),
    snapshot: (work) => oneSnapshot(() => inTransaction(snapshotReader, 'DEFERRED', snapshotDb, work)),
    locked: (query) => query,
    uniqueViolation,
    unreachable: sqliteUnreachable,
    // BINARY is SQLite's default collation already.
    binary: (column: Column) => sql`${column}`,
    insertionOrder: <K extends string>(key: K, column: Column) => ({ [key]: sql`(select coalesce(max(${column}), 0) + 1 from ${column.table})` }) as Partial<Record<K, SQL>>,
    async ping() {
      reader.prepare('select 1').get();
    },
    async close() {
      for (const connection of [reader, snapshotReader]) if (connection !== writer && connection.open) connection.close();
      if (writer.open) writer.close();
    },
  };
}
