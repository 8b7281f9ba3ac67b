// The PostgreSQL and SQLite schemas must infer the same row types, so the mappers, the records
// and every query's results mean the same on both adapters; and both must name the same tables
// and columns, so the migrations of one dialect describe the other's database too.
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as pg from '../../src/adapters/persistence/postgres/schema.js';
import * as sqlite from '../../src/adapters/persistence/sqlite/schema.js';

type Row<T extends { $inferSelect: unknown }> = T['$inferSelect'];

describe('the PostgreSQL and SQLite schemas', () => {
  it('infer the same row type for every table', () => {
    expectTypeOf<Row<typeof pg.owners>>().toEqualTypeOf<Row<typeof sqlite.owners>>();
    expectTypeOf<Row<typeof pg.consoleTokens>>().toEqualTypeOf<Row<typeof sqlite.consoleTokens>>();
    expectTypeOf<Row<typeof pg.applications>>().toEqualTypeOf<Row<typeof sqlite.applications>>();
    expectTypeOf<Row<typeof pg.users>>().toEqualTypeOf<Row<typeof sqlite.users>>();
    expectTypeOf<Row<typeof pg.devices>>().toEqualTypeOf<Row<typeof sqlite.devices>>();
    expectTypeOf<Row<typeof pg.sessions>>().toEqualTypeOf<Row<typeof sqlite.sessions>>();
    expectTypeOf<Row<typeof pg.licenses>>().toEqualTypeOf<Row<typeof sqlite.licenses>>();
    expectTypeOf<Row<typeof pg.adjustments>>().toEqualTypeOf<Row<typeof sqlite.adjustments>>();
    expectTypeOf<Row<typeof pg.userIps>>().toEqualTypeOf<Row<typeof sqlite.userIps>>();
    expectTypeOf<Row<typeof pg.variables>>().toEqualTypeOf<Row<typeof sqlite.variables>>();
    expectTypeOf<Row<typeof pg.announcements>>().toEqualTypeOf<Row<typeof sqlite.announcements>>();
    expectTypeOf<Row<typeof pg.bans>>().toEqualTypeOf<Row<typeof sqlite.bans>>();
    expectTypeOf<Row<typeof pg.authAccountCounters>>().toEqualTypeOf<Row<typeof sqlite.authAccountCounters>>();
    expectTypeOf<Row<typeof pg.authIpCounters>>().toEqualTypeOf<Row<typeof sqlite.authIpCounters>>();
    expectTypeOf<Row<typeof pg.files>>().toEqualTypeOf<Row<typeof sqlite.files>>();
    expectTypeOf<Row<typeof pg.jobs>>().toEqualTypeOf<Row<typeof sqlite.jobs>>();
  });

  it('export the same tables under the same names, with the same columns', () => {
    const shape = (schema: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(schema)
          .filter((entry): entry is [string, Table] => is(entry[1], Table))
          .map(([key, table]) => [
            key,
            {
              table: getTableName(table),
              columns: Object.fromEntries(Object.entries(getTableColumns(table)).map(([prop, column]) => [prop, { name: column.name, notNull: column.notNull }])),
            },
          ])
          .sort(([a], [b]) => String(a).localeCompare(String(b))),
      );
    const pgShape = shape(pg);
    expect(Object.keys(pgShape)).toHaveLength(16);
    expect(pgShape).toEqual(shape(sqlite));
  });
});
