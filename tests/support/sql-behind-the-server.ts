// A statement run on a test server's database behind the server's back (a change made by hand in
// SQL, or by another process), for the tests of what the server remembers.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import postgres from 'postgres';
import { testBackend, type TestApp } from './test-app.js';

export async function sqlBehindTheServer(t: TestApp, statement: string): Promise<void> {
  if (testBackend === 'postgres') {
    const pg = postgres(t.databaseUrl!, { max: 1, onnotice: () => {} });
    await pg.unsafe(statement).finally(() => pg.end({ timeout: 5 }));
  } else {
    const db = new Database(join(t.dataDir, 'gatehouse.db'));
    try {
      db.exec(statement);
    } finally {
      db.close();
    }
  }
}
