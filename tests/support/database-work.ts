// Counts the work a request gives the database, at the drivers (no production code knows of it):
// every statement, the write statements, and the write transactions that committed. A write
// outside a transaction is a write transaction of its own (autocommit).
import Database from 'better-sqlite3';

export interface DatabaseWork {
  /** Statements run, transaction control (BEGIN, COMMIT, ROLLBACK) and version probes left out. */
  statements: number;
  /** SQLite's `PRAGMA data_version` probes of the fast path (asked once an event-loop turn, so
   * their number follows the request's turns, not its work; fast/unchanged-reads.ts). */
  probes: number;
  /** Statements that insert, update or delete. */
  writes: number;
  /** Committed transactions that wrote, and writes made outside a transaction. */
  writeTransactions: number;
}

const zero = (): DatabaseWork => ({ statements: 0, probes: 0, writes: 0, writeTransactions: 0 });
let counting: DatabaseWork | null = null;

/** The work done while `run` runs (only one count at a time). */
export async function countDatabaseWork(run: () => Promise<unknown>): Promise<DatabaseWork> {
  if (counting !== null) throw new Error('countDatabaseWork does not nest');
  const work = zero();
  counting = work;
  try {
    await run();
    for (const db of sqliteConnections) settleNative(db);
  } finally {
    counting = null;
  }
  return { ...work };
}

/** Transactions open per connection, and whether each wrote yet. */
const open = new Map<unknown, boolean>();
const control = (text: string) => /^\s*(begin|start\s+transaction|commit|end|rollback)\b/i.exec(text)?.[1]?.toLowerCase() ?? null;

/** One statement seen on `connection`; `writes` says whether it inserts, updates or deletes. */
function seen(connection: unknown, text: string, writes: boolean): void {
  const kind = control(text);
  if (kind === 'begin' || kind === 'start') {
    open.set(connection, false);
    return;
  }
  if (kind === 'commit' || kind === 'end' || kind === 'rollback') {
    if (open.get(connection) === true && kind !== 'rollback' && counting !== null) counting.writeTransactions += 1;
    open.delete(connection);
    return;
  }
  if (writes && open.has(connection)) open.set(connection, true);
  if (counting === null) return;
  if (/^\s*pragma\s+data_version\b/i.test(text)) {
    counting.probes += 1;
    return;
  }
  counting.statements += 1;
  if (!writes) return;
  counting.writes += 1;
  if (!open.has(connection)) counting.writeTransactions += 1;
}

/** Whether PostgreSQL text inserts, updates or deletes (a data-modifying CTE included). */
export const pgWrites = (text: string) => /\b(insert\s+into|update\s+"?\w+"?\s+set|delete\s+from)\b/i.test(text);

/** The `debug` hook postgres.js calls with every query it sends (see the test's vi.mock). */
export function pgStatementSeen(client: number, connection: number, text: string): void {
  seen(`pg:${client}:${connection}`, text, pgWrites(text));
}

interface SqliteConnection {
  inTransaction: boolean;
}
const sqliteConnections = new Set<SqliteConnection>();

/**
 * A transaction better-sqlite3 began or ended itself (its transaction() functions) shows only in
 * `inTransaction`: taken as begun at its first statement, and as committed once it is over.
 */
function settleNative(db: SqliteConnection): void {
  sqliteConnections.add(db);
  if (db.inTransaction && !open.has(db)) open.set(db, false);
  if (!db.inTransaction && open.has(db)) seen(db, 'commit', false);
}

type Method = (this: { readonly: boolean; source: string; database: unknown }, ...args: unknown[]) => unknown;

/** Counts every statement of every better-sqlite3 connection of this process from now on. */
export function countSqliteStatements(): void {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, Method>;
  const database = Object.getPrototypeOf(probe) as Record<string, (this: unknown, text: string) => unknown>;
  probe.close();
  for (const name of ['run', 'get', 'all', 'iterate']) {
    const original = statement[name] as Method;
    statement[name] = function (this: { readonly: boolean; source: string; database: unknown }, ...args: unknown[]) {
      settleNative(this.database as SqliteConnection);
      seen(this.database, this.source, !this.readonly);
      return original.apply(this, args);
    };
  }
  const exec = database['exec'] as (this: unknown, text: string) => unknown;
  database['exec'] = function (this: unknown, text: string) {
    // exec runs statements without telling which write; the server uses it for transaction control.
    seen(this, text, false);
    return exec.call(this, text);
  };
}
