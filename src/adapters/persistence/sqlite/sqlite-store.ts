// The SQLite Store: one better-sqlite3 connection, migrated on open, with each area of the port
// implemented in its own module over that connection.
import { sql } from 'drizzle-orm';
import type { Store } from '../../../application/ports.js';
import { banStore } from './ban-store.js';
import { contentStore } from './content-store.js';
import { openConnection } from './db.js';
import { fileStore } from './file-store.js';
import { jobQueue } from './job-queue.js';
import { licenseStore } from './license-store.js';
import { applicationStore, ownerStore } from './owner-application-store.js';
import { overviewStore } from './overview-store.js';
import { sessionStore } from './session-store.js';
import { throttleStore } from './throttle-store.js';
import { userStore } from './user-store.js';

/** Opens (creating and migrating as needed) the database at `path`, or an in-memory one for ':memory:'. */
export function openSqliteStore({ path }: { path: string }): Store {
  const connection = openConnection(path);
  return {
    ...ownerStore(connection),
    ...applicationStore(connection),
    ...overviewStore(connection),
    ...licenseStore(connection),
    ...userStore(connection),
    ...sessionStore(connection),
    ...banStore(connection),
    ...throttleStore(connection),
    ...contentStore(connection),
    ...fileStore(connection),
    ...jobQueue(connection),
    async ping() {
      connection.db.get(sql`select 1`);
    },
    async close() {
      if (connection.client.open) connection.client.close();
    },
  };
}
