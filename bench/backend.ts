// The database a benchmarked server runs on: the embedded SQLite file in its fresh data folder,
// or a fresh PostgreSQL database made for the run and dropped after it. Blobs stay in the local
// folder either way, so that the database is the only difference between the two.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

export type Db = 'sqlite' | 'postgres';
export const DBS: readonly Db[] = ['sqlite', 'postgres'];

/** A role that may create databases; the machine's local server by default. */
export const POSTGRES_ADMIN_URL = process.env['GATEHOUSE_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Backend {
  db: Db;
  /** Environment of the server (and of anything opening its store). */
  env: Record<string, string>;
  /** Drops what was made for the run. */
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function prepareBackend(db: Db): Promise<Backend> {
  if (db === 'sqlite') return { db, env: {}, drop: async () => {} };
  const name = `gatehouse_bench_${randomBytes(6).toString('hex')}`;
  try {
    await withAdmin((sql) => sql.unsafe(`create database "${name}"`));
  } catch (error) {
    throw new Error(
      `cannot create a PostgreSQL database through ${POSTGRES_ADMIN_URL.replace(/:[^:@/]*@/, ':***@')} (set GATEHOUSE_BENCH_DATABASE_URL, or run with --db sqlite): ${(error as Error).message}`,
      { cause: error },
    );
  }
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    db,
    env: { DATABASE_URL: url.toString() },
    drop: () => withAdmin((sql) => sql.unsafe(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}
