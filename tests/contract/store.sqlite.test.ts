// The Store contract against SQLite, each test on a fresh database file, plus what only a file
// database can show: reopening, and two connections sharing one file.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDialect } from '../../src/adapters/persistence/sqlite/dialect.js';
import { openSqliteStore } from '../../src/adapters/persistence/sqlite/sqlite-store.js';
import { accelerated } from '../../src/adapters/persistence/fast/accelerated.js';
import { openSqliteFastReads } from '../../src/adapters/persistence/fast/sqlite-fast-reads.js';
import { keepingStatements } from '../../src/adapters/persistence/fast/sqlite-statement-cache.js';
import { lookups } from '../../src/adapters/persistence/store/lookups.js';
import type { Store } from '../../src/application/ports/store.js';
import type { StoreOptions } from '../../src/adapters/persistence/sql-store.js';
import { makeLicense, seedApp, seedUser, T0, tally } from './fixtures.js';
import { describeStoreContract } from './store-contract.js';
import { openInspectableStore } from '../support/throttle-counters.js';
import { SYSTEM } from '../../src/application/events/actor.js';

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-sqlite-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The plain store at `path`, or the accelerated one over it (fast/accelerated.ts). */
const storeAt = (path: string, fast: boolean, options: StoreOptions = {}): Store => {
  const plain = openSqliteStore({ path, ...options, ...(fast ? { client: keepingStatements } : {}) });
  return fast ? accelerated(plain, openSqliteFastReads(path)) : plain;
};

// The plain store is the specification; the accelerated one must keep to it.
for (const fast of [false, true]) {
  describeStoreContract(fast ? 'sqlite, accelerated' : 'sqlite', async () => {
    const { dir, remove } = await tempDir();
    const path = join(dir, 'gatehouse.db');
    const inspectable = openInspectableStore(openSqliteDialect(path, fast ? { client: keepingStatements } : {}));
    const store = fast ? accelerated(inspectable.store, openSqliteFastReads(path)) : inspectable.store;
    return {
      store,
      readThrottle: inspectable.readThrottle,
      connect: async (options) => storeAt(path, fast, options),
      cleanup: async () => {
        await store.close();
        await remove();
      },
    };
  });
}

describe('SQLite store on a file', () => {
  let dir = '';
  let remove: () => Promise<void> = async () => {};
  const open: Store[] = [];
  // Accelerated: the remembered reads below are the fast path's.
  const openStore = () => {
    const store = storeAt(join(dir, 'gatehouse.db'), true);
    open.push(store);
    return store;
  };

  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    await remove();
  });

  it('keeps its data across a reopen, and migrating again changes nothing', async () => {
    const first = openStore();
    const { app } = await seedApp(first);
    const user = await seedUser(first, app.id);
    await first.close();
    const second = openStore();
    expect(await second.findUserById(app.id, user.id)).toEqual(user);
  });

  it("a login reads only its user's live sessions: the index leaves revoked and expired history out", async () => {
    openStore();
    const db = new Database(join(dir, 'gatehouse.db'), { readonly: true });
    try {
      // The live-session read of openSession (store/session-store.ts), as drizzle writes it.
      const plan = db
        .prepare(
          'explain query plan select "id", "hardware_id", "expires_at", "revoked_at" from "sessions" where ("sessions"."user_id" = ? and "sessions"."revoked_at" is null and "sessions"."expires_at" > ?)',
        )
        .all('u', T0) as Array<{ detail: string }>;
      // The partial index holds unrevoked sessions only: replaced ones, revoked long before they
      // expire, are not stepped over (the session_history bench).
      expect(plan.map((r) => r.detail)).toEqual([expect.stringContaining('USING INDEX sessions_user_live_idx (user_id=? AND expires_at>?)')]);
    } finally {
      db.close();
    }
  });

  it('single-uses a license across two connections racing for it', async () => {
    const a = openStore();
    const b = openStore();
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

  // Hot reads are served from memory while the database is unchanged (fast/unchanged-reads.ts):
  // a write on any connection must end that at once.
  it('never serves a remembered read after a write on another connection', async () => {
    const a = openStore();
    const b = openStore();
    const { app } = await seedApp(a);
    const variable = { applicationId: app.id, name: 'greeting', value: 'hello', isPublic: true };
    await a.putVariable(variable, T0, SYSTEM);
    expect(await a.listVariables(app.id)).toEqual([variable]);
    expect(await a.listVariables(app.id)).toEqual([variable]);
    await b.putVariable({ ...variable, value: 'changed' }, T0, SYSTEM);
    expect(await a.listVariables(app.id)).toEqual([{ ...variable, value: 'changed' }]);
    // Two writes to its variables since it was made: the database bumped its content version twice.
    expect(await a.findApplicationByApiKey(app.apiKey)).toEqual({ ...app, contentVersion: 2 });
    await b.updateApplication(app.id, { name: 'renamed' }, T0, SYSTEM);
    expect((await a.findApplicationByApiKey(app.apiKey))?.name).toBe('renamed');
    await b.deleteVariable(app.id, 'greeting', T0, SYSTEM);
    expect(await a.listVariables(app.id)).toEqual([]);
  });

  it('never serves a remembered read after a write on its own connection', async () => {
    const a = openStore();
    const { app } = await seedApp(a);
    const user = await seedUser(a, app.id);
    expect(await a.redeemedLicenseIds(app.id, user.id)).toEqual([]);
    const license = makeLicense(app.id);
    await a.insertLicenses([license], SYSTEM);
    await a.activateLicense({ applicationId: app.id, userId: user.id, licenseDigest: license.codeDigest, adjustmentId: randomUUID(), device: null, now: T0 }, SYSTEM);
    expect(await a.redeemedLicenseIds(app.id, user.id)).toEqual([license.id]);
    expect(await a.findMatchingBans(app.id, [{ type: 'user', value: user.id }], T0)).toEqual([]);
    await a.addBans(app.id, [{ id: randomUUID(), applicationId: app.id, type: 'user', value: user.id, reason: null, createdAt: T0, propagatedFrom: null, expiresAt: null }], T0, SYSTEM);
    expect(await a.findMatchingBans(app.id, [{ type: 'user', value: user.id }], T0)).toEqual([expect.objectContaining({ type: 'user', value: user.id })]);
  });

  it('shows reads made while a snapshot is open what was committed since it began', async () => {
    const other = openStore();
    const { app } = await seedApp(other);
    const user = await seedUser(other, app.id);
    const d = openSqliteDialect(join(dir, 'gatehouse.db'));
    try {
      const reads = lookups(d);
      const timeout = { until: T0 + 60_000, reason: 'spam' };
      await d.snapshot(async (tx) => {
        // The snapshot has begun: it has read.
        expect(await tx.select({ id: d.t.users.id }).from(d.t.users)).toHaveLength(1);
        expect((await reads.findUserById(app.id, user.id))?.timeout).toBeNull();
        expect(await other.setUserTimeout(app.id, user.id, timeout, T0, SYSTEM)).toBe(true);
        expect((await reads.findUserById(app.id, user.id))?.timeout).toEqual(timeout);
      });
    } finally {
      await d.close();
    }
  });

  it('hands out remembered rows that no caller can change', async () => {
    const a = openStore();
    const { app } = await seedApp(a);
    await a.putVariable({ applicationId: app.id, name: 'x', value: '1', isPublic: false }, T0, SYSTEM);
    const first = await a.listVariables(app.id);
    // The store maps rows to fresh records, so a caller may even change what it got.
    first.pop();
    expect(await a.listVariables(app.id)).toHaveLength(1);
  });

  it('ping fails once the store is closed', async () => {
    const store = openStore();
    await store.ping();
    await store.close();
    await expect(store.ping()).rejects.toThrow();
  });
});

describe('SQLite store in memory', () => {
  it('opens, migrates and works on :memory:', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    try {
      const { app } = await seedApp(store);
      expect(await store.findApplication(app.id)).toEqual(app);
    } finally {
      await store.close();
    }
  });
});
