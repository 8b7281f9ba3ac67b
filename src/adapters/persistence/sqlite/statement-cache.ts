// better-sqlite3 compiles a statement each time drizzle runs a query it has built (drizzle's
// session calls client.prepare(sql) per call), a cost on every login (docs/performance-log.md,
// "figures from comments"). The SQL drizzle renders for one query shape is the same
// text each time, so the compiled statements are kept per connection, by text, the least
// recently used dropped past a bound (a statement's text varies with the length of an IN list or
// a bulk insert). Statements run synchronously, one at a time per connection, so reuse is safe;
// drizzle switches a statement to raw rows for some reads (stmt.raw()), which persists on the
// statement, so a reused one is switched back first. Only drizzle's queries go through the kept
// statements: the hot reads (prepared-read.ts) compile their own, held in raw mode for good.
import type Database from 'better-sqlite3';

const KEPT_STATEMENTS = 500;

/** `client` as drizzle is given it: its prepare() hands out kept statements, the rest is the client's. */
export function keepingStatements(client: Database.Database, kept = KEPT_STATEMENTS): Database.Database {
  const compile = client.prepare.bind(client) as (source: string) => Database.Statement;
  const statements = new Map<string, Database.Statement>();
  const prepare = (source: string): Database.Statement => {
    let statement = statements.get(source);
    if (statement === undefined) {
      statement = compile(source);
    } else {
      statements.delete(source);
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
