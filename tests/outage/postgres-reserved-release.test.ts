// postgres.js 3.4.9 puts a reserved connection back into its open queue when it is released, even
// when the connection closed while it was reserved; every query given to it afterwards failed
// with CONNECTION_CLOSED although PostgreSQL was back (the outage test's login after the restart).
// patches/postgres+3.4.9.patch leaves such a connection closed, to be reconnected when needed.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privatePostgresMissing, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';

const missing = process.env['GATEHOUSE_REQUIRE_POSTGRES_TESTS'] ? null : privatePostgresMissing();
if (missing !== null) console.warn(`tests/outage/postgres-reserved-release.test.ts skipped: ${missing}`);

let pg: PrivatePostgres;

beforeAll(async () => {
  if (missing === null) pg = await startPrivatePostgres();
}, 60_000);

afterAll(async () => {
  await pg?.remove();
});

describe.skipIf(missing !== null)('a connection reserved when PostgreSQL stops', () => {
  it('is not handed out again as open once PostgreSQL is back', async () => {
    const pool = postgres(pg.url, { max: 3, onnotice: () => {} });
    try {
      // All three connections open, then each reserved (as a transaction holds one).
      await Promise.all([1, 2, 3].map((n) => pool`select pg_sleep(0.05), ${n}::int`));
      const reserved = await Promise.all([1, 2, 3].map(() => pool.reserve()));
      await pg.stopImmediately();
      const lost = await Promise.allSettled(reserved.map((c) => c`select 1`));
      expect(lost.every((r) => r.status === 'rejected')).toBe(true);
      for (const c of reserved) c.release();

      await pg.start();
      // Every query of a burst as wide as the pool finds a connection that works.
      const answers = await Promise.allSettled([1, 2, 3, 4, 5, 6].map((n) => pool`select ${n}::int as n`));
      expect(answers.map((r) => (r.status === 'fulfilled' ? r.value[0]?.['n'] : String(r.reason)))).toEqual([1, 2, 3, 4, 5, 6]);
      const again = await pool.reserve();
      expect((await again`select 7::int as n`)[0]?.['n']).toBe(7);
      again.release();
    } finally {
      await pool.end({ timeout: 5 });
    }
  }, 60_000);
});
