// Plans stay right whatever the statistics were when a connection prepared its statements
// (docs/choices.md, "Planner statistics"): 100,000 users are loaded into a running server's
// database after its statements were prepared, and the login's user lookups, and app_context's
// read of the application, session and user, must still probe their unique keys rather than walk
// the application's whole (application_id, created_at) index.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { login, member } from '../support/integration.js';
import { createApplication, startTestApp, testBackend, type TestApp } from '../support/test-app.js';

const ROWS = 100_000;

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

// The two lookups every login makes of `users`, as the store words them (its WHERE clauses; the
// select list does not change the plan): by the case-folded name, then by id under a row lock.
const LOOKUPS = [
  { name: 'by username', where: 'application_id = $1 and username_key = $2', lock: false, key: 'username_key' },
  { name: 'by id, locked', where: 'application_id = $1 and id = $2', lock: true, key: 'id' },
];

/** The users loaded straight into the database: nothing the server did prepared their statistics. */
const insertUsers = (applicationId: string, now: number, numbers: string) => `
  with recursive n(g) as (select 1 union all select g + 1 from n where g < ${ROWS})
  insert into users (id, application_id, username, username_key, credential_type, password_hash, allowed_devices, allowed_sessions, is_lifetime, created_at)
  select 'seed-' || g, '${applicationId}', 'seed' || g, 'seed' || g, 'username_password', 'x', 1, 1, ${numbers === 'pg' ? 'false' : '0'}, ${now} - g from n`;

// The read of an application, a session and its user that every app_context with a token makes,
// as the store words it (hot-reads.ts): the requests of a turn unnested into rows (PostgreSQL), or
// one request as a row of its own (SQLite).
const ACCESS_JOINS = `inner join applications on applications.api_key = "requests"."apiKey"
  left join sessions on sessions.id = "requests"."sessionId"
  left join users on (users.application_id = applications.id and users.id = "requests"."userId")
  left join licenses on (licenses.application_id = applications.id and licenses.used_by_user_id = "requests"."userId")`;
const ACCESS_PG = `select "requests"."n", users.id from unnest($1::text[], $2::text[], $3::text[]) with ordinality as "requests"("apiKey", "sessionId", "userId", "n") ${ACCESS_JOINS}`;
const ACCESS_SQLITE = `select users.id from (select ? as "apiKey", ? as "sessionId", ? as "userId") as "requests" ${ACCESS_JOINS}`;

/** Every (kind, index or table) a PostgreSQL JSON plan names, and the rows its filters removed. */
function planNodes(plan: Record<string, unknown>): Array<{ node: string; index: string | null; removed: number }> {
  const here = { node: String(plan['Node Type']), index: (plan['Index Name'] as string | undefined) ?? null, removed: Number(plan['Rows Removed by Filter'] ?? 0) };
  const inner = (plan['Plans'] as Array<Record<string, unknown>> | undefined) ?? [];
  return [here, ...inner.flatMap(planNodes)];
}

/** The plan of prepared lookup `i`, run for a user among the loaded ones. */
async function explain(pg: postgres.Sql, i: number, applicationId: string) {
  const [row] = await pg.unsafe(`explain (analyze, format json) execute lookup${i}('${applicationId}', 'seed77')`);
  return planNodes((row!['QUERY PLAN'] as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
}

describe('planner statistics', () => {
  it('after 100,000 users are loaded behind a running server, the login lookups and the access read still use their unique keys', async () => {
    const app = await createApplication(t, { device_auth: false });
    await member(t, app, 'alice', 'password123');
    // The server's connections prepare and run the login's statements while the table is small.
    for (let i = 0; i < 6; i++) expect((await login(t, app, { username: 'alice', password: 'password123' }, { hardware_id: 'HW-1' })).statusCode).toBe(200);

    if (testBackend === 'postgres') {
      const pg = postgres(t.databaseUrl!, { max: 1, onnotice: () => {} });
      try {
        // Statements this connection prepares now, and runs often enough to cache a generic plan.
        await pg.unsafe('set plan_cache_mode = force_generic_plan');
        for (const [i, l] of LOOKUPS.entries()) await pg.unsafe(`prepare lookup${i} as select id from users where ${l.where}${l.lock ? ' for update' : ''}`);
        for (const i of LOOKUPS.keys()) for (let n = 0; n < 6; n++) await pg.unsafe(`execute lookup${i}('${app.id}', 'alice')`);
        const executeAccess = `execute access(array['${app.credentials.api_key}'], array['no-session'], array['seed77'])`;
        await pg.unsafe(`prepare access as ${ACCESS_PG}`);
        for (let n = 0; n < 6; n++) await pg.unsafe(executeAccess);

        await pg.unsafe(insertUsers(app.id, Date.now(), 'pg'));
        // This connection's counts reach the shared statistics at its next statement's end, not
        // a second later as they would on their own.
        await pg.unsafe('select pg_stat_force_next_flush()');
        await pg.unsafe('select 1');
        // The control: the plans cached while the table was small walk the whole application.
        const before = await Promise.all(LOOKUPS.map((_, i) => explain(pg, i, app.id)));
        expect(Math.max(...before.flat().map((n) => n.removed))).toBeGreaterThan(ROWS / 2);
        const refreshed = await t.store.refreshStatistics();
        expect(refreshed).toContain('users');
        // A second refresh finds nothing left to do.
        expect(await t.store.refreshStatistics()).not.toContain('users');

        for (const [i, l] of LOOKUPS.entries()) {
          const nodes = await explain(pg, i, app.id);
          expect(
            nodes.some((n) => n.node === 'Seq Scan'),
            `${l.name}: ${JSON.stringify(nodes)}`,
          ).toBe(false);
          expect(
            nodes.filter((n) => n.index !== null).map((n) => n.index),
            l.name,
          ).toEqual([l.key === 'id' ? 'users_pkey' : 'users_app_username_key_uq']);
          expect(Math.max(...nodes.map((n) => n.removed)), l.name).toBeLessThan(10);
        }
        // The user of each request is probed by its key, however many requests a statement carries.
        const [row] = await pg.unsafe(`explain (analyze, format json) ${executeAccess}`);
        const access = planNodes((row!['QUERY PLAN'] as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
        expect(
          access.filter((n) => n.node === 'Seq Scan'),
          JSON.stringify(access),
        ).toEqual(access.filter((n) => n.node === 'Seq Scan' && n.removed < 10));
        expect(access.map((n) => n.index)).toContain('users_pkey');
        expect(access.map((n) => n.index)).not.toContain('users_app_created_idx');
      } finally {
        await pg.end({ timeout: 5 });
      }
    } else {
      const db = new Database(join(t.dataDir, 'gatehouse.db'));
      try {
        db.exec(insertUsers(app.id, Date.now(), 'sqlite'));
        expect(await t.store.refreshStatistics()).toEqual([]);
        for (const l of LOOKUPS) {
          const plan = db.prepare(`explain query plan select id from users where ${l.where.replace('$1', '?').replace('$2', '?')}`).all(app.id, 'seed77') as Array<{ detail: string }>;
          expect(plan.map((p) => p.detail).join('; '), l.name).toMatch(
            l.key === 'id' ? /SEARCH users USING INDEX sqlite_autoindex_users_1 \(id=\?\)/ : /SEARCH users USING INDEX users_app_username_key_uq \(application_id=\? AND username_key=\?\)/,
          );
        }
        const access = (db.prepare(`explain query plan ${ACCESS_SQLITE}`).all(app.credentials.api_key, 'no-session', 'seed77') as Array<{ detail: string }>).map((p) => p.detail);
        expect(access.join('; ')).toMatch(/SEARCH users USING INDEX sqlite_autoindex_users_1 \(id=\?\)/);
        expect(access.join('; ')).toMatch(/SEARCH applications USING INDEX \S+ \(api_key=\?\)/);
        expect(access.join('; ')).not.toMatch(/SCAN (users|sessions|applications|licenses)\b/);
      } finally {
        db.close();
      }
    }
    // And the server still logs a user in among them.
    expect((await login(t, app, { username: 'alice', password: 'password123' }, { hardware_id: 'HW-1' })).statusCode).toBe(200);
  });
  it('analyzes one table per transaction under a lock_timeout: a table a migration holds is skipped, the others are not held', async () => {
    const app = await createApplication(t, { device_auth: false });
    await member(t, app, 'alice', 'password123');
    if (testBackend === 'sqlite') {
      expect(await t.store.refreshStatistics()).toEqual([]);
      return;
    }
    // One connection each: the counts flushed below are those of the connection that wrote them.
    const pg = postgres(t.databaseUrl!, { max: 1, onnotice: () => {} });
    const migration = postgres(t.databaseUrl!, { max: 1, onnotice: () => {} });
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    try {
      // Two stale tables, analyzed in name order: user_ips, then users.
      const now = Date.now();
      await pg.unsafe(`insert into users (id, application_id, username, username_key, credential_type, password_hash, allowed_devices, allowed_sessions, is_lifetime, created_at)
        select 'seed-' || g, '${app.id}', 'seed' || g, 'seed' || g, 'username_password', 'x', 1, 1, false, ${now} - g from generate_series(1, 200) g`);
      await pg.unsafe(`insert into user_ips (user_id, ip, first_seen, last_seen) select 'seed-' || g, '10.0.0.1', ${now}, ${now} from generate_series(1, 200) g`);
      await pg.unsafe('select pg_stat_force_next_flush()');
      await pg.unsafe('select 1');

      // A migration takes users (an ALTER TABLE's lock) and keeps it while the server analyzes.
      const held = migration.begin(async (tx) => {
        await tx.unsafe('lock table users in access exclusive mode');
        await released;
      });
      const locks = (mode: string | null, granted: boolean, table: string) =>
        pg
          .unsafe(`select count(*)::int as n from pg_locks where relation = '${table}'::regclass and granted = ${granted}${mode === null ? '' : ` and mode = '${mode}'`}`)
          .then((r) => (r[0] as unknown as { n: number }).n);
      const until = async (what: string, check: () => Promise<boolean>) => {
        for (let polls = 0; !(await check()); polls++) {
          if (polls > 2000) throw new Error(`never: ${what}`);
          await new Promise((r) => setTimeout(r, 2));
        }
      };
      await until('the migration holds users', async () => (await locks('AccessExclusiveLock', true, 'users')) > 0);
      const refreshed = t.store.refreshStatistics();
      // The refresh reaches users and waits for it...
      await until('ANALYZE waits for users', async () => (await locks(null, false, 'users')) > 0);
      // ...holding nothing of the table it analyzed before: that was its own, committed transaction.
      expect(await locks('ShareUpdateExclusiveLock', true, 'user_ips')).toBe(0);
      // It gives users up after the lock_timeout, while the migration still holds it.
      const analyzed = await refreshed;
      expect(analyzed).toContain('user_ips');
      expect(analyzed).not.toContain('users');
      release();
      await held;
      // The next round analyzes it.
      expect(await t.store.refreshStatistics()).toContain('users');
    } finally {
      release();
      await migration.end({ timeout: 5 });
      await pg.end({ timeout: 5 });
    }
  });
});
