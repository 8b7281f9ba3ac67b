// The Store on PostgreSQL: the shared store (sql-store.ts) over the PostgreSQL dialect.
import type { Store } from '../../../application/ports/store.js';
import { openStore, type StoreOptions } from '../sql-store.js';
import { openPostgresDialect, POOL_SIZE } from './dialect.js';
import { refreshStatistics } from './statistics.js';

/** Connects to the database at `url` (postgres://...) and migrates it; several instances starting
 * at once migrate it once. A plain async function, not a constructor: the store it returns is ready. */
export async function openPostgresStore({ url, ...options }: { url: string } & Pick<StoreOptions, 'auditKey' | 'renderEvent'>): Promise<Store> {
  const dialect = await openPostgresDialect(url);
  return openStore(dialect, { ...options, connections: POOL_SIZE, refreshStatistics: () => refreshStatistics(dialect.db) });
}
