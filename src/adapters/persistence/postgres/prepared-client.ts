// The postgres.js client as drizzle sees it. drizzle's postgres-js driver runs every query it was
// not asked to .prepare() with `prepare: false`, and postgres.js runs an unprepared query with
// parameters in two round trips (Parse and Describe, wait, then Bind and Execute), parsed and
// planned anew each time. Socket writes are most of what a query costs the server here, so every
// write and transaction statement paid twice. Through this client drizzle's queries become named
// statements, prepared once per connection and then sent in one write.
import type postgres from 'postgres';

/**
 * Statements with more parameters than this stay unnamed: those are the batches (licenses
 * inserted 500 at a time, ids in chunks), whose text varies with their size, and each named
 * statement stays in the connection's memory (and PostgreSQL's) until the connection closes.
 */
const MAX_PREPARED_PARAMETERS = 64;

type Scoped = (scoped: postgres.TransactionSql) => unknown;

/** What drizzle calls on a client (the pool, or a transaction's or savepoint's scoped client). */
interface Client {
  unsafe(query: string, params?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions): unknown;
  begin(options: string, work: Scoped): unknown;
  savepoint(work: Scoped): unknown;
}

/**
 * `sql` with drizzle's queries prepared, in its transactions and savepoints too. With
 * `beginOptions` (e.g. 'isolation level read committed'), every transaction opens with them in its
 * BEGIN, which saves the round trip of a SET TRANSACTION statement.
 */
export function preparingClient<T extends postgres.Sql | postgres.TransactionSql>(sql: T, beginOptions = ''): T {
  const client = sql as unknown as Client;
  const overrides: Record<string, unknown> = {
    unsafe: (query: string, params: postgres.ParameterOrJSON<never>[] = [], options?: postgres.UnsafeQueryOptions) =>
      client.unsafe(query, params, { ...options, prepare: params.length <= MAX_PREPARED_PARAMETERS }),
    // drizzle opens a transaction with begin(work) and a savepoint with savepoint(work), and runs
    // their statements on the scoped client it is handed.
    begin: (work: Scoped) => client.begin(beginOptions, (scoped) => work(preparingClient(scoped))),
    savepoint: (work: Scoped) => client.savepoint((scoped) => work(preparingClient(scoped))),
  };
  return new Proxy(sql, {
    get(target, property, receiver) {
      return typeof property === 'string' && Object.hasOwn(overrides, property) ? overrides[property] : (Reflect.get(target, property, receiver) as unknown);
    },
  });
}
