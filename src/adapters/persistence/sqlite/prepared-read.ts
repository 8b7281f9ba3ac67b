// A read drizzle renders to SQL once, when the store opens, and better-sqlite3 runs from then on.
//
// Built per call, a drizzle select costs far more than the read itself: the builder, the SQL
// rendering and better-sqlite3 compiling the statement again (~0.1-0.3 ms a read, most of an
// app_context request). drizzle's own .prepare() keeps the compiled statement, but each call still
// fills placeholders generically and maps every row through mapResultRow (an is() check and a path
// walk per column): measured at 1.5-2x the cost of running the statement, on reads that should
// take a few microseconds. So drizzle only writes the SQL here; the row decoder is fixed once from
// the selected columns and applies the same mapFromDriverValue drizzle would, so the rows are the
// ones drizzle's select returns.
//
// Statements run on the connection, so inside a transaction opened on it (immediate, or
// db.transaction) they read within that transaction like the tx handle would.
import type Database from 'better-sqlite3';
import { Column } from 'drizzle-orm';
import { assertSelects, bindPlaceholders, type BuiltSelect } from '../dialect.js';

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
  const columns = Object.entries(fields);
  const statement = client.prepare<Value[], unknown[]>(sql).raw(true);

  const bind = bindPlaceholders<Value>({ sql, params });

  const keys = columns.map(([key]) => key);
  // Columns whose driver value is the value (text, integer as number) are copied as they come.
  const identity = Column.prototype.mapFromDriverValue;
  const mappers = columns.map(([, c]) => (c.mapFromDriverValue === identity ? null : c));
  const decode = (raw: unknown[]): Row => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const v = raw[i];
      const mapper = mappers[i];
      row[keys[i]!] = v === null || !mapper ? v : mapper.mapFromDriverValue(v);
    }
    // The columns and their decoding are the select's own, so this is the row type it infers.
    return row as Row;
  };

  return (values) => statement.all(...bind(values)).map(decode);
}
