// allApplied (store/counter-swap.ts) on both databases: the writes of one step apply together, and
// one that applies to no row undoes the others (every throttle counter relies on it). A
// transaction's writes commit and roll back with it, and its reads see them, decoded as drizzle
// decodes them. PostgreSQL's transactions send BEGIN without waiting for it
// (postgres/prepared-client.ts): one whose COMMIT the server refused fails.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db, Dialect } from '../../src/adapters/persistence/dialect.js';
import { openPostgresDialect } from '../../src/adapters/persistence/postgres/dialect.js';
import { openStore } from '../../src/adapters/persistence/sql-store.js';
import { openSqliteDialect } from '../../src/adapters/persistence/sqlite/dialect.js';
import { allApplied, CountersMoved } from '../../src/adapters/persistence/store/counter-swap.js';
import { adminUrl, freshDatabase } from '../support/postgres-databases.js';
import { seedApp, T0 } from './fixtures.js';

type Opened = { d: Dialect; cleanup: () => Promise<void> };

const dialects: Array<[string, () => Promise<Opened>, boolean]> = [
  [
    'sqlite',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'gatehouse-all-or-none-'));
      const d = openSqliteDialect(join(dir, 'gatehouse.db'));
      return { d, cleanup: async () => (await d.close(), await rm(dir, { recursive: true, force: true })) };
    },
    false,
  ],
  [
    'postgres',
    async () => {
      const { url, drop } = await freshDatabase();
      const d = await openPostgresDialect(url);
      return { d, cleanup: async () => (await d.close(), await drop()) };
    },
    !adminUrl,
  ],
];

for (const [name, open, skipped] of dialects) {
  describe.skipIf(skipped)(`allApplied: ${name}`, () => {
    let opened: Opened | null = null;
    afterEach(async () => {
      await opened?.cleanup();
      opened = null;
    });

    async function setUp() {
      opened = await open();
      const { d } = opened;
      const { app } = await seedApp(openStore(d));
      const ips = d.t.authIpCounters;
      // Each write says whether it applied to a row.
      const counter = (ip: string, failures: number) => async (tx: Db) => (await tx.insert(ips).values({ applicationId: app.id, ip, windowStart: T0, failures }).returning({ ip: ips.ip })).length > 0;
      const bump = (ip: string) => async (tx: Db) =>
        (
          await tx
            .update(ips)
            .set({ failures: 9 })
            .where(and(eq(ips.applicationId, app.id), eq(ips.ip, ip)))
            .returning({ ip: ips.ip })
        ).length > 0;
      // One transaction of the writes: whether they applied (a CountersMoved rolled it back).
      const step = (...writes: Array<(tx: Db) => Promise<boolean>>) =>
        d
          .transaction((tx) => allApplied(writes.map((w) => w(tx))))
          .then(
            () => true,
            (e: unknown) => {
              if (e instanceof CountersMoved) return false;
              throw e;
            },
          );
      const stored = async () => (await d.db.select({ ip: ips.ip, failures: ips.failures }).from(ips).where(eq(ips.applicationId, app.id))).sort((a, b) => a.ip.localeCompare(b.ip));
      return { counter, bump, step, stored };
    }

    it('applies every write when each applies to its row', async () => {
      const { counter, bump, step, stored } = await setUp();
      expect(await step(counter('a', 1), counter('b', 2))).toBe(true);
      expect(await step(bump('a'), counter('c', 3))).toBe(true);
      expect(await stored()).toEqual([
        { ip: 'a', failures: 9 },
        { ip: 'b', failures: 2 },
        { ip: 'c', failures: 3 },
      ]);
    });

    it('undoes the others when one write applies to no row, and reports it', async () => {
      const { counter, bump, step, stored } = await setUp();
      expect(await step(counter('a', 1))).toBe(true);
      // The insert would apply and the update of 'a' would too; the update of a missing row does not.
      expect(await step(counter('b', 2), bump('a'), bump('missing'))).toBe(false);
      expect(await stored()).toEqual([{ ip: 'a', failures: 1 }]);
    });

    it('lets a failing write fail the whole step, writing nothing', async () => {
      const { counter, step, stored } = await setUp();
      // The second insert collides with the first's key: a unique violation, not a "no row".
      await expect(step(counter('a', 1), counter('a', 2))).rejects.toThrow();
      expect(await stored()).toEqual([]);
    });

    it('runs the writes of a step in order, each seeing the ones before it', async () => {
      const { counter, bump, step, stored } = await setUp();
      expect(await step(counter('x', 4), bump('x'))).toBe(true);
      expect(await step(counter('y', 5), bump('x'))).toBe(true);
      expect(await step(counter('z', 6), bump('missing'))).toBe(false);
      expect(await step(counter('z', 7), bump('y'))).toBe(true);
      expect(await stored()).toEqual([
        { ip: 'x', failures: 9 },
        { ip: 'y', failures: 9 },
        { ip: 'z', failures: 7 },
      ]);
    });
  });

  describe.skipIf(skipped)(`Dialect.transaction: ${name}`, () => {
    let opened: Opened | null = null;
    afterEach(async () => {
      await opened?.cleanup();
      opened = null;
    });

    it('writes inside the transaction: committed with it, rolled back with it', async () => {
      opened = await open();
      const { d } = opened;
      const { app } = await seedApp(openStore(d));
      const ips = d.t.authIpCounters;
      const insert = (tx: Db, ip: string, failures: number) => tx.insert(ips).values({ applicationId: app.id, ip, windowStart: T0, failures });
      const bump = (tx: Db, ip: string, by: number) =>
        tx
          .update(ips)
          .set({ failures: sql`${ips.failures} + ${by}` })
          .where(and(eq(ips.applicationId, app.id), eq(ips.ip, ip)));
      await d.transaction(async (tx) => {
        await insert(tx, 'a', 1);
        await insert(tx, 'b', 2);
        await bump(tx, 'a', 10);
      });
      const failed = new Error('the transaction fails after its writes');
      await expect(
        d.transaction(async (tx) => {
          await insert(tx, 'c', 3);
          await bump(tx, 'b', 100);
          throw failed;
        }),
      ).rejects.toBe(failed);
      await d.write((w) => insert(w, 'd', 4));
      const stored = (await d.db.select({ ip: ips.ip, failures: ips.failures }).from(ips).where(eq(ips.applicationId, app.id))).sort((x, y) => x.ip.localeCompare(y.ip));
      expect(stored).toEqual([
        { ip: 'a', failures: 11 },
        { ip: 'b', failures: 2 },
        { ip: 'd', failures: 4 },
      ]);
    });

    it('reads what it wrote, locked or not, with the columns decoded as drizzle decodes them', async () => {
      opened = await open();
      const { d } = opened;
      const { app } = await seedApp(openStore(d));
      const { authAccountCounters: a } = d.t;
      // Integers as numbers, a nullable one as null, and a text key: what the login's reads select.
      const fields = { accountKey: a.accountKey, failures: a.failures, lockedUntil: a.lockedUntil, inFlightUntil: a.inFlightUntil };
      const counters = (tx: Db, ip: string) =>
        tx
          .select(fields)
          .from(a)
          .where(and(eq(a.applicationId, app.id), eq(a.ip, ip)));
      const row = { applicationId: app.id, ip: '192.0.2.1', failures: 2, lockedUntil: T0 + 60_000, lockouts: 1, inFlight: 0, inFlightUntil: null, touchedAt: T0 };
      const read = await d.transaction(async (tx) => {
        await tx.insert(a).values({ ...row, accountKey: 'user:alice' });
        return counters(tx, '192.0.2.1');
      });
      expect(read).toEqual([{ accountKey: 'user:alice', failures: 2, lockedUntil: T0 + 60_000, inFlightUntil: null }]);
      expect(await d.transaction(async (tx) => await d.locked(tx.select(fields).from(a).where(eq(a.applicationId, app.id))))).toEqual(read);
      expect(await d.transaction((tx) => counters(tx, '192.0.2.2'))).toEqual([]);
    });
  });
}

describe.skipIf(!adminUrl)('PostgreSQL transactions', () => {
  let opened: Opened | null = null;
  afterEach(async () => {
    await opened?.cleanup();
    opened = null;
  });

  it('fail when the server answers their COMMIT with ROLLBACK, as it does once a statement failed that the work swallowed', async () => {
    const { url, drop } = await freshDatabase();
    const d = await openPostgresDialect(url);
    opened = { d, cleanup: async () => (await d.close(), await drop()) };
    const { app } = await seedApp(openStore(d));
    const ips = d.t.authIpCounters;
    const row = (ip: string) => ({ applicationId: app.id, ip, windowStart: T0, failures: 1 });
    await d.write((w) => w.insert(ips).values(row('a')));
    await expect(
      d.transaction(async (tx) => {
        await tx.insert(ips).values(row('b'));
        // A unique violation, caught: the transaction is aborted all the same.
        await tx
          .insert(ips)
          .values(row('a'))
          .catch(() => {});
      }),
    ).rejects.toThrow(/ROLLBACK/);
    expect((await d.db.select({ ip: ips.ip }).from(ips).where(eq(ips.applicationId, app.id))).map((r) => r.ip)).toEqual(['a']);
    // The connection is clean for the next transaction.
    await d.transaction((tx) => tx.insert(ips).values(row('c')));
    expect((await d.db.select({ ip: ips.ip }).from(ips).where(eq(ips.applicationId, app.id))).map((r) => r.ip).sort()).toEqual(['a', 'c']);
  });
});
