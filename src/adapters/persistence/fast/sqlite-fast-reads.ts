// The fast path's handle on a SQLite file: a read-only connection of its own, its reads prepared
// once and remembered while the file is unchanged (unchanged-reads.ts).
import Database from 'better-sqlite3';
import { type Column, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { Db } from '../dialect.js';
import * as schema from '../sqlite/schema.js';
import type { Tables } from '../tables.js';
import { type BuiltSelect, requestKey, type RequestRows } from './compiled.js';
import type { FastReads } from './fast-reads.js';
import { prepareMatchingBans } from './sqlite-ban-matching.js';
import { prepareRead, type ReadParams } from './sqlite-prepared-read.js';
import { sqliteUnreachable } from '../sqlite/dialect.js';
import { committedHere, whileUnchanged } from './unchanged-reads.js';

/** Opens a read-only connection on the file at `path` (migrated already by the plain store's dialect). */
export function openSqliteFastReads(path: string): FastReads {
  const reader = new Database(path, { readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  // The tables and database are SQLite's, behind the store's PostgreSQL-typed view (dialect.ts).
  const t = schema as unknown as Tables;
  const db = drizzle({ client: reader }) as unknown as Db;
  const remembered = whileUnchanged(reader);
  return {
    t,
    db,
    // BINARY is SQLite's default collation already.
    binary: (column: Column) => sql`${column}`,
    prepare: (fields, query) => {
      const read = remembered(prepareRead(reader, fields, query));
      return async (values) => read(values);
    },
    // One request a statement: the keys as a row of their own, the read remembered as any other.
    prepareForRequests: <Row>(fields: Record<string, Column>, keys: readonly string[], build: (requests: RequestRows) => BuiltSelect<unknown>) => {
      const columns = sql.join(
        keys.map((k) => sql`${sql.placeholder(k)} as ${sql.raw(`"${k}"`)}`),
        sql`, `,
      );
      const query = build({ source: sql`(select ${columns}) as "requests"`, key: requestKey, tag: {}, versions: {} }) as BuiltSelect<Row>;
      const read = remembered(prepareRead(reader, fields, query));
      return async (values: ReadParams) => read(values);
    },
    rowVersions: false,
    matchingBans: prepareMatchingBans(db, t, reader, remembered),
    unreachable: sqliteUnreachable,
    wrote: committedHere,
    async close() {
      if (reader.open) reader.close();
    },
  };
}
