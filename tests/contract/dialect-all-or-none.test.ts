// Dialect.allOrNone on both databases: the writes of one step apply together, and one that applies
// to no row undoes the others (store/counter-swap.ts relies on it for every throttle counter).
// Dialect.compile: a write built once runs in the transaction it is given, and rolls back with it;
// Dialect.compileRead likewise for reads. PostgreSQL's transactions send BEGIN without waiting for
// it (postgres/prepared-client.ts): one whose COMMIT the server refused fails.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/adapters/persistence/dialect.js';
import { openPostgresDialect } from '../../src/adapters/persistence/postgres/dialect.js';
import { openStore } from '../../src/adapters/persistence/sql-store.js';
import { openSqliteDialect } from '../../src/adapters/persistence/sqlite/dialect.js';
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
  describe.skipIf(skipped)(`Dialect.allOrNone: ${name}`, () => {
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
      const p = sql.placeholder;
      // Writes are built with placeholders (write i's are ip<i>, failures<i>) and bound per step.
      const counter = (i: number) => (db: typeof d.db) =>
        db
          .insert(ips)
          .values({ applicationId: p('app'), ip: p(`ip${i}`), windowStart: p('start'), failures: p(`failures${i}`) })
          .returning({ ip: ips.ip });
      const bump = (i: number) => (db: typeof d.db) =>
        db
          .update(ips)
          .set({ failures: 9 })
          .where(and(eq(ips.applicationId, p('app')), eq(ips.ip, p(`ip${i}`))))
          .returning({ ip: ips.ip });
      const values = (...ipsAndFailures: Array<[string, number?]>) => {
        const v: Record<string, unknown> = { app: app.id, start: T0 };
        ipsAndFailures.forEach(([ip, failures], i) => {
          v[`ip${i}`] = ip;
          if (failures !== undefined) v[`failures${i}`] = failures;
        });
        return v;
      };
      const stored = async () => (await d.db.select({ ip: ips.ip, failures: ips.failures }).from(ips).where(eq(ips.applicationId, app.id))).sort((a, b) => a.ip.localeCompare(b.ip));
      return { d, counter, bump, values, stored };
    }

    it('applies every write when each applies to its row', async () => {
      const { d, counter, bump, values, stored } = await setUp();
      expect(await d.allOrNone('insert,insert', (db) => [counter(0)(db), counter(1)(db)], values(['a', 1], ['b', 2]))).toBe(true);
      expect(await d.allOrNone('bump,insert', (db) => [bump(0)(db), counter(1)(db)], values(['a'], ['c', 3]))).toBe(true);
      expect(await stored()).toEqual([
        { ip: 'a', failures: 9 },
        { ip: 'b', failures: 2 },
        { ip: 'c', failures: 3 },
      ]);
    });

    it('undoes the others when one write applies to no row, and reports it', async () => {
      const { d, counter, bump, values, stored } = await setUp();
      expect(await d.allOrNone('insert', (db) => [counter(0)(db)], values(['a', 1]))).toBe(true);
      // The insert would apply and the update of 'a' would too; the update of a missing row does not.
      expect(await d.allOrNone('insert,bump,bump', (db) => [counter(0)(db), bump(1)(db), bump(2)(db)], values(['b', 2], ['a'], ['missing']))).toBe(false);
      expect(await stored()).toEqual([{ ip: 'a', failures: 1 }]);
    });

    it('lets a failing write fail the whole step, writing nothing', async () => {
      const { d, counter, values, stored } = await setUp();
      // The second insert collides with the first's key: a unique violation, not a "no row".
      await expect(d.allOrNone('insert,insert', (db) => [counter(0)(db), counter(1)(db)], values(['a', 1], ['a', 2]))).rejects.toThrow();
      expect(await stored()).toEqual([]);
    });

    it('builds the writes of a shape once and binds the values of each step to them', async () => {
      const { d, counter, bump, values, stored } = await setUp();
      let builds = 0;
      const step = (db: typeof d.db) => {
        builds++;
        return [counter(0)(db), bump(1)(db)];
      };
      expect(await d.allOrNone('insert', (db) => [counter(0)(db)], values(['x', 4]))).toBe(true);
      expect(await d.allOrNone('insert,bump', step, values(['y', 5], ['x']))).toBe(true);
      expect(await d.allOrNone('insert,bump', step, values(['z', 6], ['missing']))).toBe(false);
      expect(await d.allOrNone('insert,bump', step, values(['z', 7], ['y']))).toBe(true);
      expect(builds).toBe(1);
      expect(await stored()).toEqual([
        { ip: 'x', failures: 9 },
        { ip: 'y', failures: 9 },
        { ip: 'z', failures: 7 },
      ]);
    });
  });

  describe.skipIf(skipped)(`Dialect.compile: ${name}`, () => {
    let opened: Opened | null = null;
    afterEach(async () => {
      await opened?.cleanup();
      opened = null;
    });

    it('builds once, binds each run, and writes inside the transaction it is given: committed with it, rolled back with it', async () => {
      opened = await open();
      const { d } = opened;
      const { app } = await seedApp(openStore(d));
      const ips = d.t.authIpCounters;
      const p = sql.placeholder;
      let builds = 0;
      const insert = d.compile((db) => {
        builds++;
        return db.insert(ips).values({ applicationId: p('app'), ip: p('ip'), windowStart: T0, failures: p('failures') });
      });
      const bump = d.compile((db) =>
        db
          .update(ips)
          .set({ failures: sql`${ips.failures} + ${p('by')}` })
          .where(and(eq(ips.applicationId, p('app')), eq(ips.ip, p('ip')))),
      );
      await d.transaction(async (tx) => {
        await insert(tx, { app: app.id, ip: 'a', failures: 1 });
        await insert(tx, { app: app.id, ip: 'b', failures: 2 });
        await bump(tx, { app: app.id, ip: 'a', by: 10 });
      });
      const failed = new Error('the transaction fails after its compiled writes');
      await expect(
        d.transaction(async (tx) => {
          await insert(tx, { app: app.id, ip: 'c', failures: 3 });
          await bump(tx, { app: app.id, ip: 'b', by: 100 });
          throw failed;
        }),
      ).rejects.toBe(failed);
      await d.write((w) => insert(w, { app: app.id, ip: 'd', failures: 4 }));
      expect(builds).toBe(1);
      const stored = (await d.db.select({ ip: ips.ip, failures: ips.failures }).from(ips).where(eq(ips.applicationId, app.id))).sort((x, y) => x.ip.localeCompare(y.ip));
      expect(stored).toEqual([
        { ip: 'a', failures: 11 },
        { ip: 'b', failures: 2 },
        { ip: 'd', failures: 4 },
      ]);
    });
  });

  describe.skipIf(skipped)(`Dialect.compileRead: ${name}`, () => {
    let opened: Opened | null = null;
    afterEach(async () => {
      await opened?.cleanup();
      opened = null;
    });

    it('builds once and reads, inside the transaction it is given, what that transaction wrote, with the columns decoded as drizzle decodes them', async () => {
      opened = await open();
      const { d } = opened;
      const { app } = await seedApp(openStore(d));
      const { authAccountCounters: a } = d.t;
      const p = sql.placeholder;
      let builds = 0;
      // Integers as numbers, a nullable one as null, and a text key: what the login's reads select.
      const fields = { accountKey: a.accountKey, failures: a.failures, lockedUntil: a.lockedUntil, inFlightUntil: a.inFlightUntil };
      const counters = d.compileRead(fields, (db) => {
        builds++;
        return db
          .select(fields)
          .from(a)
          .where(and(eq(a.applicationId, p('app')), eq(a.ip, p('ip'))));
      });
      const row = { applicationId: app.id, ip: '192.0.2.1', failures: 2, lockedUntil: T0 + 60_000, lockouts: 1, inFlight: 0, inFlightUntil: null, touchedAt: T0 };
      const read = await d.transaction(async (tx) => {
        await tx.insert(a).values({ ...row, accountKey: 'user:alice' });
        return counters(tx, { app: app.id, ip: '192.0.2.1' });
      });
      expect(read).toEqual([{ accountKey: 'user:alice', failures: 2, lockedUntil: T0 + 60_000, inFlightUntil: null }]);
      const locked = d.compileRead(
        fields,
        (db) =>
          db
            .select(fields)
            .from(a)
            .where(eq(a.applicationId, p('app'))),
        { lock: true },
      );
      expect(await d.transaction((tx) => locked(tx, { app: app.id }))).toEqual(read);
      expect(await d.transaction((tx) => counters(tx, { app: app.id, ip: '192.0.2.2' }))).toEqual([]);
      expect(builds).toBe(1);
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
