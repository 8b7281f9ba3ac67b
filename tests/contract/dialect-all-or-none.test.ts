// Dialect.allOrNone on both databases: the writes of one step apply together, and one that applies
// to no row undoes the others (store/counter-swap.ts relies on it for every throttle counter).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
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
      const counter = (ip: string, failures: number) => (db: typeof d.db) =>
        db.insert(ips).values({ applicationId: app.id, ip, windowStart: T0, failures }).returning({ ip: ips.ip });
      const bump = (ip: string) => (db: typeof d.db) =>
        db.update(ips).set({ failures: 9 }).where(and(eq(ips.applicationId, app.id), eq(ips.ip, ip))).returning({ ip: ips.ip });
      const stored = async () =>
        (await d.db.select({ ip: ips.ip, failures: ips.failures }).from(ips).where(eq(ips.applicationId, app.id))).sort((a, b) => a.ip.localeCompare(b.ip));
      return { d, counter, bump, stored };
    }

    it('applies every write when each applies to its row', async () => {
      const { d, counter, bump, stored } = await setUp();
      expect(await d.allOrNone((db) => [counter('a', 1)(db), counter('b', 2)(db)])).toBe(true);
      expect(await d.allOrNone((db) => [bump('a')(db), counter('c', 3)(db)])).toBe(true);
      expect(await stored()).toEqual([
        { ip: 'a', failures: 9 },
        { ip: 'b', failures: 2 },
        { ip: 'c', failures: 3 },
      ]);
    });

    it('undoes the others when one write applies to no row, and reports it', async () => {
      const { d, counter, bump, stored } = await setUp();
      expect(await d.allOrNone((db) => [counter('a', 1)(db)])).toBe(true);
      // The insert would apply and the update of 'a' would too; the update of a missing row does not.
      expect(await d.allOrNone((db) => [counter('b', 2)(db), bump('a')(db), bump('missing')(db)])).toBe(false);
      expect(await stored()).toEqual([{ ip: 'a', failures: 1 }]);
    });

    it('lets a failing write fail the whole step, writing nothing', async () => {
      const { d, counter, stored } = await setUp();
      // The second insert collides with the first's key: a unique violation, not a "no row".
      await expect(d.allOrNone((db) => [counter('a', 1)(db), counter('a', 2)(db)])).rejects.toThrow();
      expect(await stored()).toEqual([]);
    });
  });
}
