// A read drizzle renders to SQL once, when the store opens, and better-sqlite3 runs from then on.
//
// Built per call, a drizzle select costs far more than the read, and .prepare() still maps rows
// generically (docs/performance-log.md, "figures from comments"). So drizzle only writes the SQL;
// the row decoder is fixed once and applies drizzle's mapFromDriverValue: the same rows.
//
// Statements run on the connection, so inside a transaction opened on it (immediate, or
// db.transaction) they read within that transaction like the tx handle would.
import type Database from 'better-sqlite3';
import type { Column } from 'drizzle-orm';
import { assertSelects, bindPlaceholders, type BuiltSelect, positionalRows } from './compiled.js';

type Value = string | number | null;
export type ReadParams = Readonly<Record<string, Value>>;

/** Runs the prepared read with these placeholder values: its rows. */
export type PreparedRead<Row> = (params: ReadParams) => Row[];

/**
 * Prepares `query`, which must select exactly `fields` (`db.select(fields).from(...)`): the decoder
 * reads the row's values in that order, and the rendered SQL is checked to select those columns
 * (assertSelects) so the two cannot drift apart.
 */
export function prepareRead<Row>(client: Database.Database, fields: Record<string, Column>, query: BuiltSelect<Row>): PreparedRead<Row> {
  const { sql, params } = query.toSQL();
  assertSelects(sql, fields);
  const statement = client.prepare<Value[], unknown[]>(sql).raw(true);
  const bind = bindPlaceholders<Value>({ sql, params });
  const decode = positionalRows<Row>(fields);
  return (values) => statement.all(...bind(values)).map(decode);
}
