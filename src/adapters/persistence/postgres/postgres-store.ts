// The PostgreSQL Store: a pool of connections to one database, migrated on open, with each area
// of the port implemented in its own module over that pool. Any number of instances may share the
// database: every read-decide-write runs in a transaction holding row locks (see db.ts).
import { sql } from 'drizzle-orm';
import type { Store } from '../../../application/ports.js';
import { banStore } from './ban-store.js';
import { contentStore } from './content-store.js';
import { openConnection } from './db.js';
import { fileStore } from './file-store.js';
import { jobQueue } from './job-queue.js';
import { licenseStore } from './license-store.js';
import { applicationStore, ownerStore } from './owner-application-store.js';
import { sessionStore } from './session-store.js';
import { throttleStore } from './throttle-store.js';
import { userStore } from './user-store.js';

/**
 * Connects to the database at `url` (postgres://...) and migrates it; several instances starting
 * at once migrate it once. A plain async function, not a constructor: the store it returns is ready.
 */
export async function openPostgresStore({ url }: { url: string }): Promise<Store> {
  const connection = await openConnection(url);
  return {
    ...ownerStore(connection),
    ...applicationStore(connection),
    ...licenseStore(connection),
    ...userStore(connection),
    ...sessionStore(connection),
    ...banStore(connection),
    ...throttleStore(connection),
    ...contentStore(connection),
    ...fileStore(connection),
    ...jobQueue(connection),
    async ping() {
      await connection.db.execute(sql`select 1`);
    },
    async close() {
      await connection.sql.end({ timeout: 5 });
    },
  };
}
