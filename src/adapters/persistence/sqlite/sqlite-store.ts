// The Store on SQLite: the shared store (sql-store.ts) over the SQLite dialect.
import type { Store } from '../../../application/ports/store.js';
import { openStore, type StoreOptions } from '../sql-store.js';
import { openSqliteDialect, type SqliteDialectOptions } from './dialect.js';

/** Opens (creating and migrating as needed) the database at `path`, or an in-memory one for ':memory:'. */
export function openSqliteStore({ path, client, ...options }: { path: string } & SqliteDialectOptions & Pick<StoreOptions, 'auditKey' | 'renderEvent'>): Store {
  return openStore(openSqliteDialect(path, client === undefined ? {} : { client }), options);
}
