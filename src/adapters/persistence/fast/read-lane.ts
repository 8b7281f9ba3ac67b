// The connection the hot point reads run on (the lookups every integration request makes): one
// connection of its own, apart from the pool that writes and transactions use. Why one:
// - postgres.js pipelines the reads of concurrent requests over it, so one socket write and one
//   read carry many queries, where a pool spreads them out at a syscall pair each;
// - postgres.js's pool (3.4.9) leaves a slot behind in its connection queues at every query while
//   two or more of its connections are idle (or busy) together, and scans those slots at the next
//   query (Queue.remove's indexOf): its CPU per query grows with uptime. A client of one
//   connection never has two in a queue;
// - plain SELECTs never wait for row locks, so no transaction can hold this connection up.
// PostgreSQL runs the reads one after another on one backend: an indexed lookup takes some tens of
// microseconds there, well ahead of what one Node process can ask of it.
import postgres from 'postgres';

export type LaneArg = postgres.ParameterOrJSON<never>;

export interface ReadLane {
  /** Runs `text` as a named prepared statement (prepared once per connection): its rows, as arrays of values. */
  values(text: string, args: LaneArg[]): Promise<unknown[][]>;
  ping(): Promise<void>;
  end(): Promise<void>;
}

/**
 * How long a replaced client keeps what it still holds (queries queued on it while its connection
 * was closing) before it is ended: postgres.js's connect timeout, so a query it cannot run has
 * failed by then.
 */
const RETIRE_AFTER_MS = 30_000;

/**
 * Opens the read lane. Its client connects on the first query. When its connection closes after
 * it was established (lost, or at the end of its lifetime) the lane moves on to a fresh client: postgres.js 3.4.9 keeps the
 * bytes of a query still waiting to be written when a connection closes, and the timer that would
 * have written them, so the next connection's startup message waits behind them and never goes
 * out. A pool loses that one connection and carries on with others; a client of one connection
 * would hang.
 */
export function openReadLane(url: string): ReadLane {
  const retired = new Map<postgres.Sql, NodeJS.Timeout>();
  let ending = false;
  const finish = (client: postgres.Sql): Promise<void> => {
    clearTimeout(retired.get(client));
    retired.delete(client);
    // Whatever it still holds is rejected now rather than left waiting.
    return client.end({ timeout: 0 }).catch(() => {});
  };
  const open = (): postgres.Sql => {
    // Whether this client's connection got through its startup (the server reports its
    // parameters then). A failed attempt to connect leaves the client in place, retrying with
    // postgres.js's backoff, rather than making a new client (and a new attempt) per query.
    let established = false;
    const client = postgres(url, {
      max: 1,
      onnotice: () => {},
      onparameter: () => {
        established = true;
      },
      onclose: () => {
        if (ending || current !== client || !established) return;
        current = open();
        const timer = setTimeout(() => void finish(client), RETIRE_AFTER_MS);
        timer.unref();
        retired.set(client, timer);
      },
      // Every read here is an indexed lookup whose best plan does not depend on the values, and
      // each was checked (EXPLAIN) to use its index as a generic plan. Left to choose, PostgreSQL
      // plans the ban probe anew at every run (its generic estimate assumes ten keys, so it never
      // looks cheaper than a custom plan), dear with many bans (docs/performance-log.md).
      connection: { plan_cache_mode: 'force_generic_plan' },
      // fetch_types stays on (the default): the ban lookup's text[] parameters need the array
      // serializers it loads at connect.
      // int8 columns as numbers, as the schema's bigint(..., { mode: 'number' }) reads them.
      types: { int8AsNumber: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (text: string) => Number(text) } },
    });
    return client;
  };
  let current = open();
  return {
    values: async (text, args) => [...(await current.unsafe(text, args, { prepare: true }).values())] as unknown[][],
    async ping() {
      await current`select 1`;
    },
    async end() {
      ending = true;
      await Promise.all([current.end({ timeout: 5 }), ...[...retired.keys()].map(finish)]);
    },
  };
}
