// drizzle's better-sqlite3 session compiles a statement every time a built query runs; the text of
// one query shape is the same each time, so compiled statements are kept per connection by text
// (docs/architecture.md, "The fast path": why reuse is safe).
import type Database from 'better-sqlite3';

const KEPT_STATEMENTS = 500;

/** `client` as drizzle is given it: its prepare() hands out kept statements, the least recently used dropped past `kept`. */
export function keepingStatements(client: Database.Database, kept = KEPT_STATEMENTS): Database.Database {
  const compile = client.prepare.bind(client) as (source: string) => Database.Statement;
  const statements = new Map<string, Database.Statement>();
  const prepare = (source: string): Database.Statement => {
    let statement = statements.get(source);
    if (statement === undefined) {
      statement = compile(source);
    } else {
      statements.delete(source);
      // drizzle switches some reads to raw rows (stmt.raw()), which stays on the statement.
      if (statement.reader) statement.raw(false);
    }
    statements.set(source, statement);
    if (statements.size > kept) statements.delete(statements.keys().next().value as string);
    return statement;
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      const value: unknown = Reflect.get(target, property, target);
      // The client's own methods are native and must be called on it.
      return typeof value === 'function' ? (value.bind(target) as unknown) : value;
    },
  });
}
