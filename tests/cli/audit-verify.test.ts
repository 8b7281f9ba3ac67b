// `gatehouse audit verify` (issue 17, acceptance 5): recomputes an application's audit chain from
// the database; passes on an untouched one and names the entry after a row is edited or deleted
// directly in SQL, or the newest one removed (the chain's head still names it).
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, type Build } from '../support/server-process.js';
import { type TestApp, consoleRequest, createApplication, startTestApp } from '../support/test-app.js';
import { runGatehouse } from './run-cli.js';

let build: Build;
let t: TestApp;
const apps: Record<'untouched' | 'edited' | 'gap' | 'newest' | 'pruned', string> = { untouched: '', edited: '', gap: '', newest: '', pruned: '' };
const DAY = 86_400_000;
/** When the third variable of the `pruned` application was set: the retention cutoff of its test. */
let cutoff = 0;

beforeAll(async () => {
  build = await buildServer();
  t = await startTestApp();
  for (const name of Object.keys(apps) as Array<keyof typeof apps>) {
    const app = await createApplication(t);
    apps[name] = app.id;
    // Four entries per application: three variable changes and an announcement.
    for (const v of ['a', 'b', 'c']) {
      // The `pruned` application's entries are a day apart, for its retention cutoff.
      if (name === 'pruned') t.clock.advance(DAY);
      if (name === 'pruned' && v === 'c') cutoff = t.clock.now();
      await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/${v}`, { value: v, is_public: false });
    }
    await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, { title: 'Hello', content_html: '<p>hi</p>', status: 'DRAFT', publish_from: '2026-06-08T12:00:00.000Z' });
  }
  await t.chainer.drain();
}, 180_000);

afterAll(async () => {
  await t?.close();
  build?.remove();
});

const verify = (applicationId: string) =>
  runGatehouse(build.outDir, ['audit', 'verify', '--application', applicationId], {
    LOG_LEVEL: 'warn',
    GATEHOUSE_DATA_DIR: t.dataDir,
    GATEHOUSE_MASTER_KEY: t.masterKey.toString('base64'),
  });

/** Runs SQL on the server's database file directly, as someone covering their tracks would. */
function sql<T>(work: (db: Database.Database) => T): T {
  const db = new Database(t.dbPath);
  try {
    return work(db);
  } finally {
    db.close();
  }
}
const idAt = (applicationId: string, seq: number) =>
  sql((db) => (db.prepare('select id from events where application_id = ? and seq = ?').get(applicationId, seq) as { id: string }).id);

describe('audit verify', () => {
  it('passes an untouched database, with the count', async () => {
    const run = await verify(apps.untouched);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`audit chain of ${apps.untouched}: OK, 4 entries verified\n`);
    expect(run.code).toBe(0);
  });

  it("names the entry whose data was changed by an UPDATE in SQL", async () => {
    const id = idAt(apps.edited, 2);
    sql((db) => db.prepare(`update events set data = replace(data, '"value":"b"', '"value":"forged"') where id = ?`).run(id));
    const run = await verify(apps.edited);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`entry seq 2 (id ${id}) was changed`);
  });

  it('names the gap a DELETE of a middle row leaves', async () => {
    const before = idAt(apps.gap, 1);
    sql((db) => db.prepare('delete from events where application_id = ? and seq = 2').run(apps.gap));
    const run = await verify(apps.gap);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`entry seq 2 is missing (after seq 1, id ${before})`);
  });

  it('notices the newest row deleted: the head still names it', async () => {
    sql((db) => db.prepare('delete from events where application_id = ? and seq = 4').run(apps.newest));
    const run = await verify(apps.newest);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('entry seq 4 is missing');
  });

  it("a CLI owner sign-in is recorded as the owner (no address), and the chain still verifies", async () => {
    const run = await runGatehouse(
      build.outDir,
      ['owner', 'login', '--email', 'owner@example.com', '--password-stdin'],
      { LOG_LEVEL: 'warn', GATEHOUSE_DATA_DIR: t.dataDir, GATEHOUSE_MASTER_KEY: t.masterKey.toString('base64') },
      undefined,
      'owner-password-1\n',
    );
    expect(run.code, run.stderr).toBe(0);
    const owner = (await t.store.listOwners())[0]!;
    const [signedIn] = await t.store.listEvents(apps.untouched, { action: 'owner.signed_in' }, { limit: 5 });
    expect(signedIn).toMatchObject({ actor: { type: 'owner', id: owner.id, ip: null }, target: { type: 'owner', id: owner.id }, data: { via: 'cli' } });
    // Linked by verify itself, which links what the server has not yet.
    expect((await verify(apps.untouched)).stdout).toBe(`audit chain of ${apps.untouched}: OK, 5 entries verified\n`);
  });

  it('after retention pruned the oldest entries, starts at the oldest left; deleting that one is still noticed', async () => {
    // The purge covers every application (the others' entries are all older); this one loses its first two.
    await t.store.pruneEvents(cutoff, t.clock.now());
    // Seq 5 is the owner's CLI sign-in of the test before.
    expect((await t.store.chainedEvents(apps.pruned, 0, 10)).map((e) => e.seq)).toEqual([3, 4, 5]);
    const run = await verify(apps.pruned);
    // Entries 3 to 5, and the audit.pruned entry (seq 6) the prune recorded.
    expect(run.stdout).toBe(`audit chain of ${apps.pruned}: OK, 4 entries verified\n`);
    expect(run.code).toBe(0);
    sql((db) => db.prepare('delete from events where application_id = ? and seq = 3').run(apps.pruned));
    const broken = await verify(apps.pruned);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('entry seq 3 is missing (the first)');
  });

  it('an unknown application is not found (exit 5), and --application is required (exit 2)', async () => {
    expect((await verify('00000000-0000-4000-8000-000000000000')).code).toBe(5);
    const run = await runGatehouse(build.outDir, ['audit', 'verify'], { GATEHOUSE_DATA_DIR: t.dataDir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('audit verify needs --application');
  });
});
