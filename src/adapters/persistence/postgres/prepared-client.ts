// The postgres.js client as drizzle sees it, preparing its queries (docs/architecture.md, "PostgreSQL's client").
import type postgres from 'postgres';

/** Statements with more parameters stay unnamed: the batches (docs/architecture.md, "PostgreSQL's client"). */
const MAX_PREPARED_PARAMETERS = 64;

type Scoped = (scoped: postgres.TransactionSql) => unknown;

/** What drizzle calls on a client (the pool, or a transaction's or savepoint's scoped client). */
interface Client {
  unsafe(query: string, params?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions): unknown;
  savepoint(work: Scoped): unknown;
}

/** A transaction on a reserved connection, its BEGIN sent with its first statements, failed by a
 * COMMIT answered with ROLLBACK (docs/architecture.md, "PostgreSQL's client"). */
async function pipelinedTransaction(pool: postgres.Sql, beginOptions: string, work: Scoped): Promise<unknown> {
  const connection = await pool.reserve();
  try {
    const begun = connection.unsafe(`begin ${beginOptions}`);
    // Its failure fails the statements behind it, so the work sees it.
    begun.catch(() => {});
    const result = await work(preparingClient(connection as unknown as postgres.TransactionSql));
    await begun;
    const committed = await connection.unsafe('commit');
    if (committed.command !== 'COMMIT') throw new Error(`the transaction was not committed: the server answered COMMIT with ${committed.command}`);
    return result;
  } catch (e) {
    await connection.unsafe('rollback').catch(() => {});
    throw e;
  } finally {
    connection.release();
  }
}

/** `sql` with drizzle's queries prepared, in its transactions and savepoints too. With `beginOptions`
 * (e.g. 'isolation level read committed'), every transaction opens with them in its BEGIN, saving a
 * SET TRANSACTION round trip; the pool's transactions are pipelinedTransaction's. */
export function preparingClient<T extends postgres.Sql | postgres.TransactionSql>(sql: T, beginOptions = ''): T {
  const client = sql as unknown as Client;
  const overrides: Record<string, unknown> = {
    unsafe: (query: string, params: postgres.ParameterOrJSON<never>[] = [], options?: postgres.UnsafeQueryOptions) =>
      client.unsafe(query, params, { ...options, prepare: params.length <= MAX_PREPARED_PARAMETERS }),
    // drizzle opens a transaction with begin(work) and a savepoint with savepoint(work), and runs
    // their statements on the scoped client it is handed.
    begin: (work: Scoped) => pipelinedTransaction(sql as postgres.Sql, beginOptions, work),
    savepoint: (work: Scoped) => client.savepoint((scoped) => work(preparingClient(scoped))),
  };
  return new Proxy(sql, {
    get(target, property, receiver) {
      return typeof property === 'string' && Object.hasOwn(overrides, property) ? overrides[property] : (Reflect.get(target, property, receiver) as unknown);
    },
  });
}
