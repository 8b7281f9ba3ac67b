// A read drizzle builds once from the schema and postgres.js then runs as a named prepared
// statement on the read lane. drizzle's own prepared queries (.prepare()) were measured at about
// a quarter more client CPU per app_context request than this (a tracing span, placeholder
// filling and a per-row remap on every call); the SQL is still drizzle's, so the schema and the
// SQL cannot drift apart.
import { bindPlaceholders, type BuiltSelect } from '../dialect.js';
import type { LaneArg, ReadLane } from './read-lane.js';

/** The values of a read's placeholders, by name: text, or text arrays. */
export type ReadValues = Record<string, string | number | string[]>;

/** The read `query` as a function of its placeholders' values; its text never varies, so it is prepared once per connection. */
export function preparedRead<Row>(lane: ReadLane, query: BuiltSelect<Row>): (values: ReadValues) => Promise<Row[]> {
  const built = query.toSQL();
  const bind = bindPlaceholders<LaneArg>(built);
  // The rows carry the schema's property names and JS types (see read-lane.ts): drizzle's rows.
  return async (values) => (await lane.query(built.sql, bind(values))) as Row[];
}
