// A read drizzle renders to SQL once, at open, since built per call a select costs far more than
// the read (docs/performance.md, "Accelerators"). Statements run on the connection, so inside a
// transaction opened on it they read within that transaction like the tx handle would.
import type Database from 'better-sqlite3';
import type { Column } from 'drizzle-orm';
import { assertSelects, bindPlaceholders, type BuiltSelect, positionalRows } from './compiled.js';

type Value = string | number | null;
export type ReadParams = Readonly<Record<string, Value>>;

/** Runs the prepared read with these placeholder values: its rows. */
export type PreparedRead<Row> = (params: ReadParams) => Row[];

// Prepares `query`, which must select exactly `fields` (`db.select(fields).from(...)`): the decoder
// reads values in that order, and assertSelects checks the SQL so the two cannot drift apart.
export function prepareRead<Row>(client: Database.Database, fields: Record<string, Column>, query: BuiltSelect<Row>): PreparedRead<Row> {
  const { sql, params } = query.toSQL();
  assertSelects(sql, fields);
  const statement = client.prepare<Value[], unknown[]>(sql).raw(true);
  const bind = bindPlaceholders<Value>({ sql, params });
  const decode = positionalRows<Row>(fields);
  return (values) => statement.all(...bind(values)).map(decode);
}
