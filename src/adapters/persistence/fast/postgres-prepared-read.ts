// A read drizzle builds once and postgres.js runs as a named prepared statement on the read lane:
// drizzle's .prepare() costs more CPU a call (docs/performance-log.md), and the SQL stays drizzle's.
// Rows arrive as arrays, named by position (two joined tables may share a column name).
import type { Column } from 'drizzle-orm';
import { assertSelects, bindPlaceholders, type BuiltSelect } from './compiled.js';
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
