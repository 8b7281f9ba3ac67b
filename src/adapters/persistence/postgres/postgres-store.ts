// The PostgreSQL Store: a pool of connections to one database, migrated on open, with each area
// of the port implemented in its own module over that pool. Any number of instances may share the
// database: every read-decide-write runs in a transaction holding row locks (see db.ts).
import { sql } from 'drizzle-orm';
import type { Store } from '../../../application/ports.js';
import { banStore } from './ban-store.js';
import { contentStore } from './content-store.js';
import { openConnection } from './db.js';
import { fileStore } from './file-store.js';
import { hotReads } from './hot-reads.js';
import { jobQueue } from './job-queue.js';
import { licenseStore } from './license-store.js';
import { applicationStore, ownerStore } from './owner-application-store.js';
import { overviewStore } from './overview-store.js';
import { sessionStore } from './session-store.js';
import { throttleStore } from './throttle-store.js';
import { userStore } from './user-store.js';

/**
 * Connects to the database at `url` (postgres://...) and migrates it; several instances starting
 * at once migrate it once. A plain async function, not a constructor: the store it returns is ready.
 */
export async function openPostgresStore({ url }: { url: string }): Promise<Store> {
  const connection = await openConnection(url);
  const reads = hotReads(connection.db, connection.lane);
  return {
    ...ownerStore(connection),
    ...applicationStore(connection, reads),
    ...overviewStore(connection),
    ...licenseStore(connection, reads),
    ...userStore(connection, reads),
    ...sessionStore(connection, reads),
    ...banStore(connection, reads),
    ...throttleStore(connection),
    ...contentStore(connection, reads),
    ...fileStore(connection, reads),
    ...jobQueue(connection),
    async ping() {
      // Both connections' ways: the pool's and the read lane's.
      await Promise.all([connection.db.execute(sql`select 1`), connection.lane.ping()]);
    },
    async close() {
      await Promise.all([connection.sql.end({ timeout: 5 }), connection.lane.end()]);
    },
  };
}
