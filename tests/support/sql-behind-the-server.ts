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

/** The rows of a query run on a test server's database behind its back (for tables no port reads yet). */
export async function rowsBehindTheServer<Row = Record<string, unknown>>(t: TestApp, query: string): Promise<Row[]> {
  if (testBackend === 'postgres') {
    const pg = postgres(t.databaseUrl!, { max: 1, onnotice: () => {} });
    return (await pg.unsafe(query).finally(() => pg.end({ timeout: 5 }))) as unknown as Row[];
  }
  const db = new Database(join(t.dataDir, 'gatehouse.db'), { readonly: true });
  try {
    return db.prepare(query).all() as Row[];
  } finally {
    db.close();
  }
}
