// A hot read the calls of one event-loop turn share: one statement, their keys sent as arrays and
// unnested into rows, each answer row tagged with its request's place. It starts after every
// call, so a change is still read by the very next request (docs/architecture.md, "The read lane").
import { assertSelects, bindPlaceholders, type BuiltSelect, requestKey, type RequestRows } from './compiled.js';
import { type Column, getTableName, sql, type Table } from 'drizzle-orm';
import type { LaneArg, ReadLane } from './read-lane.js';

/** Requests one statement answers at most; more in a turn go in several statements. */
export const MAX_REQUESTS_PER_STATEMENT = 500;

const TAG = '"requests"."n"';

// A row's version: its xmin, which changes whenever the row does (docs/choices.md, "Remembered
// access"). As text: an xid has no binary form here.
const versionOf = (table: Table) => `"${getTableName(table)}".xmin::text`;

/** The requests' keys unnested into rows, numbered from 1 in their order (`with ordinality`). */
export function unnestedRequests(keys: readonly string[], versioned: Readonly<Record<string, Table>> = {}): RequestRows {
  const arrays = sql.join(
    keys.map((k) => sql`${sql.placeholder(k)}::text[]`),
    sql`, `,
  );
  const columns = sql.raw([...keys, 'n'].map((k) => `"${k}"`).join(', '));
  const versions = Object.fromEntries(Object.entries(versioned).map(([name, table]) => [name, sql.raw(versionOf(table))]));
  return { source: sql`unnest(${arrays}) with ordinality as "requests"(${columns})`, key: requestKey, tag: { request: sql.raw(TAG) }, versions };
}

interface Waiting<Row> {
  values: Readonly<Record<string, string>>;
  resolve(rows: Row[]): void;
  reject(error: unknown): void;
}

// `build`'s read as a function of one request's keys. Rows arrive as arrays (the tag, the versions
// of `versioned`, then `fields`) and are named by position, as preparedRead names them.
export function requestBatch<Row>(
  lane: ReadLane,
  fields: Record<string, Column>,
  keys: readonly string[],
  build: (requests: RequestRows) => BuiltSelect<unknown>,
  versioned: Readonly<Record<string, Table>> = {},
  maxRequests = MAX_REQUESTS_PER_STATEMENT,
): (values: Readonly<Record<string, string>>) => Promise<Row[]> {
  const built = build(unnestedRequests(keys, versioned)).toSQL();
  assertSelects(built.sql, fields, [TAG, ...Object.values(versioned).map(versionOf)].map((text) => `${text}, `).join(''));
  const bind = bindPlaceholders<LaneArg>(built);
  // The tag, then the versions, then the fields.
  const names = [...Object.keys(versioned), ...Object.keys(fields)];
  const decode = (values: unknown[]): Row => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i + 1];
    return row as Row;
  };

  // PostgreSQL's text holds no NUL, so a key with one matches no row; sent, it would fail the
  // statement, and with it every other request of the batch. It is sent as null, which matches
  // no row either.
  const keyOf = (value: string): string | null => (value.includes('\u0000') ? null : value);
  const run = (batch: Waiting<Row>[]) => {
    const arrays: Record<string, Array<string | null>> = {};
    for (const key of keys) arrays[key] = batch.map((w) => keyOf(w.values[key] as string));
    lane.values(built.sql, bind(arrays)).then(
      (rows) => {
        const answers = batch.map((): Row[] => []);
        for (const values of rows) answers[(values[0] as number) - 1]!.push(decode(values));
        batch.forEach((w, i) => w.resolve(answers[i]!));
      },
      // The statement failed (the connection did): so did every request it answered.
      (error: unknown) => batch.forEach((w) => w.reject(error)),
    );
  };
  let pending: Waiting<Row>[] | null = null;
  const flush = () => {
    const batch = pending!;
    pending = null;
    for (let i = 0; i < batch.length; i += maxRequests) run(batch.slice(i, i + maxRequests));
  };

  return (values) =>
    new Promise<Row[]>((resolve, reject) => {
      if (pending === null) {
        pending = [];
        setImmediate(flush);
      }
      pending.push({ values, resolve, reject });
    });
}
