// A read drizzle builds once from the schema and postgres.js then runs as a named prepared
// statement on the read lane. drizzle's own prepared queries (.prepare()) were measured at about
// a quarter more client CPU per app_context request than this (a tracing span, placeholder
// filling and a per-row remap on every call); the SQL is still drizzle's, so the schema and the
// SQL cannot drift apart. Rows arrive as arrays and are named by position, as the select's fields
// are (two tables of a join may have columns of the same name).
import type { Column } from 'drizzle-orm';
import { assertSelects, bindPlaceholders, type BuiltSelect } from '../dialect.js';
import type { LaneArg, ReadLane } from './read-lane.js';

/** The values of a read's placeholders, by name: text, or text arrays. */
export type ReadValues = Record<string, string | number | string[]>;

/** The read `query`, which selects exactly `fields`, as a function of its placeholders' values; its text never varies, so it is prepared once per connection. */
export function preparedRead<Row>(lane: ReadLane, fields: Record<string, Column>, query: BuiltSelect<Row>): (values: ReadValues) => Promise<Row[]> {
  const built = query.toSQL();
  assertSelects(built.sql, fields);
  const bind = bindPlaceholders<LaneArg>(built);
  const keys = Object.keys(fields);
  // postgres.js parses each value by its type (int8 as a number: read-lane.ts), as drizzle reads
  // these columns, so the rows are the ones drizzle's select returns.
  const decode = (values: unknown[]): Row => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) row[keys[i]!] = values[i];
    return row as Row;
  };
  // A then rather than an async function: one promise fewer on every read.
  return (values) => lane.values(built.sql, bind(values)).then((rows) => rows.map(decode));
}
