// patches/drizzle-orm+0.45.4.patch keeps drizzle's `is` answers per (prototype, class): it must
// answer exactly as drizzle's own walk does, for every kind of value the query builder meets.
import { Column, is, Param, SQL, sql, Table, View } from 'drizzle-orm';
import { alias, PgColumn, PgTable, pgTable, text } from 'drizzle-orm/pg-core';
import { SQLiteColumn, SQLiteTable, sqliteTable, text as sqliteText } from 'drizzle-orm/sqlite-core';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entityKind = Symbol.for('drizzle:entityKind');

/** drizzle 0.45.4's `is`, unpatched. */
function walk(value: unknown, type: { [entityKind]?: unknown }): boolean {
  if (!value || typeof value !== 'object') return false;
  if (value instanceof (type as unknown as new () => unknown)) return true;
  let cls = (Object.getPrototypeOf(value) as { constructor?: object }).constructor ?? null;
  while (cls !== null) {
    if (entityKind in cls && cls[entityKind] === type[entityKind]) return true;
    cls = Object.getPrototypeOf(cls);
  }
  return false;
}

describe("drizzle's entity check, kept per prototype", () => {
  const pgUsers = pgTable('users', { id: text('id').primaryKey(), name: text('name') });
  const liteUsers = sqliteTable('users', { id: sqliteText('id').primaryKey() });
  const values: unknown[] = [
    pgUsers,
    liteUsers,
    pgUsers.id,
    liteUsers.id,
    alias(pgUsers, 'u'),
    alias(pgUsers, 'u').name,
    sql`select 1`,
    sql.placeholder('x'),
    new Param(1),
    {},
    [],
    new Date(0),
    Object.create(null),
    'text',
    7,
    null,
    undefined,
  ];
  const types = [SQL, Table, Column, Param, View, PgTable, PgColumn, SQLiteTable, SQLiteColumn];

  it('answers as the unpatched walk for every value and class, asked twice', () => {
    for (let round = 0; round < 2; round++) {
      for (const value of values) {
        for (const type of types) {
          // drizzle's own walk throws on an object without a prototype; so does the patched check.
          if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === null) {
            expect(() => is(value, type)).toThrow(TypeError);
            continue;
          }
          expect(is(value, type), `${String(type.name)} of ${Object.prototype.toString.call(value)}`).toBe(walk(value, type as never));
        }
      }
    }
  });

  it('is the patched check (npm install applies patches/)', () => {
    const installed = readFileSync(fileURLToPath(import.meta.resolve('drizzle-orm/entity')), 'utf8');
    expect(installed).toContain('isMemo');
  });

  it('still refuses a class that is not a drizzle entity', () => {
    class Stranger {}
    expect(() => is(new Stranger(), Stranger as never)).not.toThrow();
    expect(() => is({}, Stranger as never)).toThrow(/doesn't look like a Drizzle entity/);
  });
});
