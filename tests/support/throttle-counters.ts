// The throttle counters a store keeps, for tests that check exact counts. The ThrottleStore port
// offers no read of them (nothing in production lists throttle state), so tests read them over
// the store's dialect (counterRows in src/adapters/persistence/store/throttle-store.ts).
import type { Dialect } from '../../src/adapters/persistence/dialect.js';
import { openPostgresDialect } from '../../src/adapters/persistence/postgres/dialect.js';
import { openStore } from '../../src/adapters/persistence/sql-store.js';
import { openSqliteDialect } from '../../src/adapters/persistence/sqlite/dialect.js';
import { counterRows } from '../../src/adapters/persistence/store/throttle-store.js';
import type { Store } from '../../src/application/ports/store.js';
import { type AccountCounter, type AccountWindow, freshAccountCounter, type IpCounter } from '../../src/domain/auth-throttle.js';
import type { TestApp } from './test-app.js';

/** The three credential-check counters of one (account, address), as stored. */
export interface ThrottleCounters {
  /** The account at this address's network, networkBucket (fresh while it has no row). */
  account: AccountCounter;
  /** The account's window at every address, or null while it has none. */
  everywhere: AccountWindow | null;
  ip: IpCounter | null;
}

async function readThrottleCounters(dialect: Dialect, applicationId: string, accountKey: string, ip: string): Promise<ThrottleCounters> {
  const stored = await counterRows(dialect).read(applicationId, accountKey, ip);
  return { account: stored.pair ?? freshAccountCounter, everywhere: stored.window, ip: stored.ip };
}

/** The throttle counters of (account, address) in one store's database. */
export type ReadThrottle = (applicationId: string, accountKey: string, ip: string) => Promise<ThrottleCounters>;

/** The store over `dialect` (closing it closes the dialect), with a read of its counters over the same dialect. */
export function openInspectableStore(dialect: Dialect): { store: Store; readThrottle: ReadThrottle } {
  return {
    store: openStore(dialect),
    readThrottle: (applicationId, accountKey, ip) => readThrottleCounters(dialect, applicationId, accountKey, ip),
  };
}

/** The counters in a test app's database, over a dialect of its own, closed after the read. */
export async function readTestAppThrottle(t: TestApp, applicationId: string, accountKey: string, ip: string): Promise<ThrottleCounters> {
  const dialect = t.databaseUrl === null ? openSqliteDialect(t.dbPath) : await openPostgresDialect(t.databaseUrl);
  try {
    return await readThrottleCounters(dialect, applicationId, accountKey, ip);
  } finally {
    await dialect.close();
  }
}
