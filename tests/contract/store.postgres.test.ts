// The Store contract against PostgreSQL. Needs GATEHOUSE_TEST_DATABASE_URL (a role that may create
// databases); without it the suite is skipped with a notice. Each file migrates one template
// database once; each test then gets a fresh copy of it (CREATE DATABASE ... TEMPLATE), dropped
// after the test, plus what only a server database shows: several instances migrating at once.
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { adminUrl, createDatabase, dropDatabase, freshDatabase, uniqueName, urlOf } from '../support/postgres-databases.js';
import { openPostgresDialect } from '../../src/adapters/persistence/postgres/dialect.js';
import { openPostgresStore } from '../../src/adapters/persistence/postgres/postgres-store.js';
import type { Store } from '../../src/application/ports/store.js';
import { randomUUID } from 'node:crypto';
import { must } from './contract-files.js';
import { jobKeys, makeLicense, makeUpload, seedApp, seedUser, T0, tally } from './fixtures.js';
import { describeStoreContract } from './store-contract.js';
import { openInspectableStore } from '../support/throttle-counters.js';
import { accelerated } from '../../src/adapters/persistence/fast/accelerated.js';
import { openPostgresFastReads } from '../../src/adapters/persistence/fast/postgres-fast-reads.js';
import type { StoreOptions } from '../../src/adapters/persistence/sql-store.js';
import { SYSTEM } from '../../src/application/events/actor.js';

/** The migrations drizzle/postgres holds: each applied exactly once however many instances start. */
const migrationCount = (JSON.parse(readFileSync(new URL('../../drizzle/postgres/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] }).entries.length;

if (!adminUrl) console.warn('GATEHOUSE_TEST_DATABASE_URL is not set: PostgreSQL contract tests skipped');

describe.skipIf(!adminUrl)('PostgreSQL', () => {
  // The plain store is the specification; the accelerated one (fast/accelerated.ts) must keep to it.
  for (const fast of [false, true]) {
    const storeAt = async (url: string, options: StoreOptions = {}) => {
      const plain = await openPostgresStore({ url, ...options });
      return fast ? accelerated(plain, openPostgresFastReads(url)) : plain;
    };
    describeStoreContract(
      fast ? 'postgres, accelerated' : 'postgres',
      async () => {
        const { url, drop } = await freshDatabase();
        const inspectable = openInspectableStore(await openPostgresDialect(url));
        const store = fast ? accelerated(inspectable.store, openPostgresFastReads(url)) : inspectable.store;
        return {
          store,
          readThrottle: inspectable.readThrottle,
          connect: (options) => storeAt(url, options),
          cleanup: async () => {
            await store.close();
            await drop();
          },
        };
      },
      // Nothing is skipped: PostgreSQL honours the whole contract.
      { skip: [] },
    );
  }

  describe('PostgreSQL store on a server', () => {
    const open: Store[] = [];
    const drops: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
      for (const drop of drops.splice(0)) await drop();
    });

    it('several instances starting at once on an empty database migrate it once', async () => {
      const name = uniqueName('gh_t');
      await createDatabase(name);
      drops.push(() => dropDatabase(name));
      const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore({ url: urlOf(name) })));
      open.push(...stores);
      const [first, second] = stores;
      if (!first || !second) throw new Error('no store opened');
      const { app } = await seedApp(first);
      const user = await seedUser(first, app.id);
      expect(await second.findUserById(app.id, user.id)).toEqual(user);
      const db = postgres(urlOf(name), { max: 1, onnotice: () => {} });
      try {
        const [applied] = await db`select count(*)::int as n from drizzle.__drizzle_migrations`;
        expect(migrationCount).toBeGreaterThan(1);
        expect(applied?.n).toBe(migrationCount);
      } finally {
        await db.end({ timeout: 5 });
      }
    });

    it('keeps its data across a reopen, and migrating again changes nothing', async () => {
      const { url, drop } = await freshDatabase();
      drops.push(drop);
      const first = await openPostgresStore({ url });
      const { app } = await seedApp(first);
      const user = await seedUser(first, app.id);
      await first.close();
      const second = await openPostgresStore({ url });
      open.push(second);
      expect(await second.findUserById(app.id, user.id)).toEqual(user);
    });

    it('single-uses a license across two instances racing for it', async () => {
      const { url, drop } = await freshDatabase();
      drops.push(drop);
      const a = await openPostgresStore({ url });
      const b = await openPostgresStore({ url });
      open.push(a, b);
      const { app } = await seedApp(a);
      const license = makeLicense(app.id);
      await a.insertLicenses([license], SYSTEM);
      const users = await Promise.all(Array.from({ length: 50 }, () => seedUser(a, app.id)));
      const result = await tally(
        users.map((u, i) => (i % 2 ? a : b).activateLicense({ applicationId: app.id, userId: u.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM)),
      );
      expect(result).toEqual({ fulfilled: 1, codes: { LICENSE_USED: 49 } });
      expect((await b.findLicenseById(app.id, license.id))?.usedAt).toBe(T0);
    });

    it('parallel upserts of one new file name over two instances: one creates, the others replace it', async () => {
      const { url, drop } = await freshDatabase();
      drops.push(drop);
      const a = await openPostgresStore({ url });
      const b = await openPostgresStore({ url });
      open.push(a, b);
      const { app } = await seedApp(a);
      const uploads = Array.from({ length: 20 }, () => makeUpload(app.id, { name: 'same.bin' }));
      const results = await Promise.all(uploads.map((u, i) => (i % 2 ? a : b).upsertFileByName(u.file, u.job)));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const files = await a.listFiles(app.id);
      expect(files).toHaveLength(1);
      expect(new Set(results.map((r) => r.file.id))).toEqual(new Set([files[0]?.id]));
      // Every replaced upload's job was dropped: only the one the file awaits holds keys still.
      const awaited = uploads.find((u) => u.job.id === files[0]?.state.pendingJobId);
      expect(await a.referencedBlobKeys()).toEqual(jobKeys(must(awaited).job));
    });

    it('ping fails once the store is closed', async () => {
      const { url, drop } = await freshDatabase();
      drops.push(drop);
      const store = await openPostgresStore({ url });
      await store.ping();
      await store.close();
      await expect(store.ping()).rejects.toThrow();
    });

    it('opening an unreachable database fails', async () => {
      const url = new URL(urlOf(uniqueName('gh_missing')));
      await expect(openPostgresStore({ url: url.toString() })).rejects.toThrow();
    });
  });
});
