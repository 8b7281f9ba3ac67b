// Statements built once with drizzle, their placeholders bound by name at each run: the fast
// path's reads skip drizzle's building per call (docs/architecture.md, "The fast path").
import { Column, getTableName, is, Param, Placeholder, type SQL, sql } from 'drizzle-orm';

/** What a prepared hot read takes: its placeholders' values by name. */
export type ReadValues = Record<string, string | number>;

/** A drizzle select with sql.placeholder(name) for what varies, as the hot reads build them. */
export interface BuiltSelect<Row> {
  toSQL(): { sql: string; params: unknown[] };
  readonly _: { readonly result: Row[] };
}

// The requests a hot read answers, as rows of their keys (FastReads.prepareForRequests): a FROM
// source with a column per key, and what the select puts before its fields to tell requests apart.
export interface RequestRows {
  source: SQL;
  key(name: string): SQL;
  tag: Record<string, SQL>;
  // Where rows carry versions (FastReads.rowVersions), each named row's version, selected after
  // the tag (null where a left join found no row); otherwise empty.
  versions: Record<string, SQL>;
}

/** The column of key `name` in RequestRows.source, as each dialect names it. */
export const requestKey = (name: string): SQL => sql.raw(`"requests"."${name}"`);

// The parameters of a built read as a function of its placeholders' values, by name; its other
// parameters (a LIMIT) stay as built, so the statement text never varies.
export function bindPlaceholders<V>({ sql, params }: { sql: string; params: unknown[] }): (values: Readonly<Record<string, V>>) => V[] {
  type Slot = { name: string; encode: ((value: V) => V) | null } | { value: V };
  const slots = params.map((p): Slot => {
    if (is(p, Placeholder)) return { name: p.name, encode: null };
    // A value written to a column (insert values, update set) is the column's to encode.
    if (is(p, Param) && is(p.value, Placeholder)) {
      const { encoder } = p;
      return { name: p.value.name, encode: (value) => (value === null ? value : (encoder.mapToDriverValue(value) as V)) };
    }
    return { value: p as V };
  });
  return (values) =>
    slots.map((slot) => {
      if ('value' in slot) return slot.value;
      const value = values[slot.name];
      if (value === undefined) throw new Error(`no value for placeholder ${slot.name} of: ${sql}`);
      return slot.encode === null ? value : slot.encode(value);
    });
}

// Throws unless `sql` selects exactly `fields`' columns in order, after `leading`: prepared hot
// reads decode rows by position, so the two cannot drift apart. drizzle names a column alone from
// one table and with its table when the select joins others.
export function assertSelects(sql: string, fields: Record<string, Column>, leading = ''): void {
  const columns = Object.values(fields);
  const bare = `select ${leading}${columns.map((c) => `"${c.name}"`).join(', ')} from `;
  const qualified = `select ${leading}${columns.map((c) => `"${getTableName(c.table)}"."${c.name}"`).join(', ')} from `;
  if (!sql.startsWith(bare) && !sql.startsWith(qualified)) throw new Error(`prepared read selects other columns than its decoder: ${sql}`);
}

// Rows as drizzle's select of `fields` returns them, from the driver's arrays in the fields' order
// (assertSelects): each value through its column's mapFromDriverValue, as drizzle maps it.
export function positionalRows<Row>(fields: Record<string, Column>): (raw: readonly unknown[]) => Row {
  const keys = Object.keys(fields);
  const identity = Column.prototype.mapFromDriverValue;
  const mappers = Object.values(fields).map((c) => (c.mapFromDriverValue === identity ? null : c));
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const v = raw[i];
      const mapper = mappers[i];
      row[keys[i]!] = v === null || !mapper ? v : mapper.mapFromDriverValue(v);
    }
    // The columns and their decoding are the select's own, so this is the row type it infers.
    return row as Row;
  };
}
