// A read drizzle builds once from the schema and postgres.js then runs as a named prepared
// statement on the read lane. drizzle's own prepared queries (.prepare()) were measured at about
// a quarter more client CPU per app_context request than this (a tracing span, placeholder
// filling and a per-row remap on every call); the SQL is still drizzle's, so the schema and the
// SQL cannot drift apart.
import { is, Placeholder } from 'drizzle-orm';
import type { BuiltSelect } from '../dialect.js';
import type { LaneArg, ReadLane } from './read-lane.js';


/** The values of a read's placeholders, by name: text, or text arrays. */
export type ReadValues = Record<string, string | number | string[]>;

/**
 * The read `query` as a function of its placeholders' values. Its other parameters (a LIMIT)
 * are fixed as built, so the statement text never varies: it is prepared once per connection.
 */
export function preparedRead<Row>(lane: ReadLane, query: BuiltSelect<Row>): (values: ReadValues) => Promise<Row[]> {
  const { sql, params } = query.toSQL();
  const slots = params.map((p): ((values: ReadValues) => LaneArg) => {
    if (!is(p, Placeholder)) return () => p as LaneArg;
    const name = p.name;
    return (values) => {
      const value = values[name];
      if (value === undefined) throw new Error(`no value for placeholder ${name} of: ${sql}`);
      return value;
    };
  });
  return async (values) => {
    const args = slots.map((slot) => slot(values));
    // The rows carry the schema's property names and JS types (see read-lane.ts): drizzle's rows.
    return (await lane.query(sql, args)) as Row[];
  };
}
