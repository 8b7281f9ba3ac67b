// The hot point reads run on one connection of their own, apart from the pool that writes and
// transactions use: postgres.js pipelines concurrent requests' reads over it, and plain SELECTs
// never wait for row locks (docs/architecture.md, "The read lane").
import postgres from 'postgres';

export type LaneArg = postgres.ParameterOrJSON<never>;

export interface ReadLane {
  /** Runs `text` as a named prepared statement (prepared once per connection): its rows, as arrays of values. */
  values(text: string, args: LaneArg[]): Promise<unknown[][]>;
  ping(): Promise<void>;
  end(): Promise<void>;
}

// How long a replaced client keeps the queries queued on it while its connection was closing:
// postgres.js's connect timeout, so a query it cannot run has failed by then.
const RETIRE_AFTER_MS = 30_000;

// Opens the read lane; its client connects on the first query. A closed connection moves the lane
// to a fresh client, since a client of one connection would hang on reconnecting
// (docs/architecture.md, "The read lane").
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
      // Every read here is an indexed lookup whose best plan does not depend on the values;
      // left to choose, PostgreSQL plans the ban probe anew at every run
      // (docs/architecture.md, "The read lane").
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
