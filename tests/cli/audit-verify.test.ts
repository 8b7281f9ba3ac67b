// `gatehouse audit verify` (issue 17, acceptance 5; issue 39, item 14): recomputes an application's
// keyed audit chain from the database; passes on an untouched one and refuses what someone who can
// write the database (but has no master key) does in SQL: edit a row, re-link with plain SHA-256,
// delete rows, cut the tail (against an exported signed head), insert rows, forge a prune.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditChainer } from '../../src/application/events/audit-chainer.js';
import { canonicalJson } from '../../src/domain/audit-chain.js';
import { renderEvent } from '../../src/adapters/events/render-event.js';
import { auditHeadSignedBy, parseSignedAuditHead } from '../../src/signing/audit-head.js';
import { buildServer, type Build } from '../support/server-process.js';
import { type TestApp, consoleRequest, createApplication, startTestApp } from '../support/test-app.js';
import { runGatehouse } from './run-cli.js';
import { SYSTEM } from '../../src/application/events/actor.js';

let build: Build;
let t: TestApp;
const NAMES = ['untouched', 'edited', 'relinked', 'gap', 'newest', 'cut', 'inserted', 'forgedPrune', 'legacy', 'pruned'] as const;
const apps = Object.fromEntries(NAMES.map((n) => [n, ''])) as Record<(typeof NAMES)[number], string>;
const scratch = mkdtempSync(join(tmpdir(), 'gatehouse-audit-heads-'));
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

const verify = (applicationId: string, ...extra: string[]) =>
  runGatehouse(build.outDir, ['audit', 'verify', '--application', applicationId, ...extra], {
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
const idAt = (applicationId: string, seq: number) => sql((db) => (db.prepare('select id from events where application_id = ? and seq = ?').get(applicationId, seq) as { id: string }).id);

interface Row {
  id: string;
  application_id: string;
  seq: number;
  occurred_at: number;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_ip: string | null;
  target_type: string;
  target_id: string;
  target_label: string | null;
  data_form: 'facts' | 'rendered';
  data: string;
  changes: string | null;
  outcome: string;
  hash: string;
}
/** The row's data and changes as the export shows them (rendered from its facts). */
const rendered = (r: Row) =>
  renderEvent({
    action: r.action,
    occurredAt: r.occurred_at,
    dataForm: r.data_form,
    data: JSON.parse(r.data) as Record<string, unknown>,
    changes: r.changes === null ? null : (JSON.parse(r.changes) as Record<string, [unknown, unknown]>),
  });
/** The entry as the chain covers it, from its row (what anyone can compute from the export). */
const covered = (r: Row) => ({
  id: r.id,
  application_id: r.application_id,
  seq: r.seq,
  occurred_at: new Date(r.occurred_at).toISOString(),
  action: r.action,
  actor: { type: r.actor_type, id: r.actor_id, ip: r.actor_ip },
  target: { type: r.target_type, id: r.target_id, label: r.target_label },
  ...rendered(r),
  outcome: r.outcome,
});
/** Re-links the application's chain from `fromSeq` with plain SHA-256 and moves the head, as the old, unkeyed rule did. */
function relinkWithSha256(db: Database.Database, applicationId: string, fromSeq: number): void {
  const rows = db.prepare('select * from events where application_id = ? and seq is not null order by seq').all(applicationId) as Row[];
  let previous: string | null = null;
  for (const r of rows) {
    if (r.seq >= fromSeq) {
      r.hash = createHash('sha256')
        .update(previous ?? '')
        .update(canonicalJson(covered(r)))
        .digest('hex');
      db.prepare('update events set hash = ? where id = ?').run(r.hash, r.id);
    }
    previous = r.hash;
  }
  db.prepare('update audit_chain_heads set seq = ?, hash = ? where application_id = ?').run(rows.at(-1)!.seq, previous, applicationId);
}
/** Inserts an event row by hand, unchained (as an attacker, or a chain-less writer, would). */
function insertRow(db: Database.Database, applicationId: string, action: string, data: unknown, seq: number | null = null, hash: string | null = null): string {
  const id = randomUUID();
  db.prepare(
    `insert into events (id, application_id, pos, occurred_at, action, actor_type, actor_id, actor_ip, target_type, target_id, target_label, data, changes, outcome, seq, hash)
     values (?, ?, (select coalesce(max(pos), 0) + 1 from events), ?, ?, 'system', null, null, 'application', ?, null, ?, null, 'success', ?, ?)`,
  ).run(id, applicationId, t.clock.now(), action, applicationId, JSON.stringify(data), seq, hash);
  return id;
}

describe('audit verify', () => {
  it('passes an untouched database, with the count', async () => {
    const run = await verify(apps.untouched);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`audit chain of ${apps.untouched}: OK, 4 entries verified\n`);
    expect(run.code).toBe(0);
  });

  it('names the entry whose data was changed by an UPDATE in SQL', async () => {
    const id = idAt(apps.edited, 2);
    sql((db) => db.prepare(`update events set data = replace(data, '"name":"b"', '"name":"forged"') where id = ?`).run(id));
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

  it('attack: an entry edited and the chain re-linked with plain SHA-256, head included, is refused', async () => {
    const id = idAt(apps.relinked, 2);
    sql((db) => {
      db.prepare(`update events set data = replace(data, '"name":"b"', '"name":"forged"') where id = ?`).run(id);
      relinkWithSha256(db, apps.relinked, 2);
    });
    const run = await verify(apps.relinked);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`entry seq 2 (id ${id}) was changed`);
  });

  it('attack: the tail cut and the head moved back is caught against a signed head exported before', async () => {
    const anchor = join(scratch, 'cut-head.json');
    const exported = await verify(apps.cut, '--export-head', anchor);
    expect(exported.code, exported.stdout).toBe(0);
    const head = parseSignedAuditHead(readFileSync(anchor, 'utf8'))!;
    expect(head).toMatchObject({ application_id: apps.cut, seq: 4 });
    // Anyone with the application's public key can check the exported head.
    const publicKey = (await t.store.findApplication(apps.cut))!.signing.response!.publicKey;
    expect(auditHeadSignedBy(head, publicKey)).toBe(true);
    expect((await verify(apps.cut, '--anchor', anchor)).code).toBe(0);
    sql((db) => {
      db.prepare('delete from events where application_id = ? and seq > 2').run(apps.cut);
      const kept = db.prepare('select seq, hash from events where application_id = ? and seq = 2').get(apps.cut) as { seq: number; hash: string };
      db.prepare('update audit_chain_heads set seq = ?, hash = ? where application_id = ?').run(kept.seq, kept.hash, apps.cut);
    });
    // The database alone cannot tell: every link it holds is a keyed one (docs/events.md says so).
    expect((await verify(apps.cut)).code).toBe(0);
    const run = await verify(apps.cut, '--anchor', anchor);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('the exported head names seq 4, which the chain no longer holds (it ends at seq 2)');
    // A head re-signed by anyone else (or edited) is refused, not trusted.
    const forged = join(scratch, 'forged-head.json');
    writeFileSync(forged, JSON.stringify({ ...head, seq: 2, hash: 'a'.repeat(64) }));
    const refused = await verify(apps.cut, '--anchor', forged);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("the exported head is not signed by the application's key");
  });

  it('attack: a row inserted by hand is never linked, by the chainer or by verify, and verify reports it', async () => {
    const forged = sql((db) => insertRow(db, apps.inserted, 'license.deleted', { note: 'never happened' }));
    const before = await verify(apps.inserted);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(`audit chain of ${apps.inserted}: OK, 4 entries verified`);
    expect(before.stdout).toContain(`1 entry outside the chain, not sealed by Gatehouse (written into the database by other means): ${forged}`);
    // The server's chainer leaves it out too, and links what comes after.
    await consoleRequest(t, 'PUT', `/applications/${apps.inserted}/variables/d`, { value: 'd', is_public: false });
    await t.chainer.drain();
    const row = sql((db) => db.prepare('select seq, hash from events where id = ?').get(forged)) as { seq: number | null; hash: string | null };
    expect(row).toEqual({ seq: null, hash: 'unlinked' });
    const after = await verify(apps.inserted);
    expect(after.code).toBe(1);
    expect(after.stdout).toContain('OK, 5 entries verified');
    expect(after.stdout).toContain(forged);
  });

  it('attack: a forged audit.pruned hiding a deletion is refused, linked by hand or left to the chainer', async () => {
    const firstTwo = sql((db) => {
      const hashOf2 = (db.prepare('select hash from events where application_id = ? and seq = 2').get(apps.forgedPrune) as { hash: string }).hash;
      db.prepare('delete from events where application_id = ? and seq <= 2').run(apps.forgedPrune);
      return hashOf2;
    });
    sql((db) => insertRow(db, apps.forgedPrune, 'audit.pruned', { through_seq: 2, through_hash: firstTwo, removed: 2, before: '2026-06-08T12:00:00.000Z' }));
    await t.chainer.drain();
    const unlinkedPrune = await verify(apps.forgedPrune);
    expect(unlinkedPrune.code).toBe(1);
    expect(unlinkedPrune.stdout).toContain('entry seq 1 is missing (the first)');
    expect(unlinkedPrune.stdout).toContain('1 entry outside the chain');
    // Linked by hand with plain SHA-256 after the head, and the head moved onto it.
    sql((db) => {
      const head = db.prepare('select seq, hash from audit_chain_heads where application_id = ?').get(apps.forgedPrune) as { seq: number; hash: string };
      const id = insertRow(db, apps.forgedPrune, 'audit.pruned', { through_seq: 2, through_hash: firstTwo, removed: 2, before: '2026-06-08T12:00:00.000Z' }, head.seq + 1, 'x');
      const r = db.prepare('select * from events where id = ?').get(id) as Row;
      const hash = createHash('sha256')
        .update(head.hash)
        .update(canonicalJson(covered(r)))
        .digest('hex');
      db.prepare('update events set hash = ? where id = ?').run(hash, id);
      db.prepare('update audit_chain_heads set seq = ?, hash = ? where application_id = ?').run(head.seq + 1, hash, apps.forgedPrune);
    });
    const linked = await verify(apps.forgedPrune);
    expect(linked.code).toBe(1);
    expect(linked.stdout).toContain('entry seq 5');
    expect(linked.stdout).toContain('was changed');
  });

  it('a chain made before keying fails until a server re-anchors it, then verifies with its unkeyed prefix counted', async () => {
    sql((db) => {
      relinkWithSha256(db, apps.legacy, 1);
      db.prepare('update audit_chain_heads set keyed = 0 where application_id = ?').run(apps.legacy);
    });
    const before = await verify(apps.legacy);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('entries from seq 1 on are not linked with the key');
    // A server's chainer, on its first pass after the upgrade, re-anchors it with a keyed entry.
    const upgraded = createAuditChainer(t.deps, { pollMs: 60_000 });
    await upgraded.drain();
    const [rekeyed] = await t.store.listEvents(apps.legacy, { action: 'audit.rekeyed' }, { limit: 5 });
    expect(rekeyed).toMatchObject({ seq: 5, actor: { type: 'system' }, data: { unkeyed_through_seq: 4 } });
    const after = await verify(apps.legacy);
    expect(after.stdout).toBe(`audit chain of ${apps.legacy}: OK, 5 entries verified (the first 4 chained before keying)\n`);
    expect(after.code).toBe(0);
  });

  it("audit head prints the signed head, verifiable with the application's public key", async () => {
    const run = await runGatehouse(build.outDir, ['audit', 'head', '--application', apps.untouched], {
      LOG_LEVEL: 'warn',
      GATEHOUSE_DATA_DIR: t.dataDir,
      GATEHOUSE_MASTER_KEY: t.masterKey.toString('base64'),
    });
    expect(run.code, run.stderr).toBe(0);
    const head = parseSignedAuditHead(run.stdout)!;
    expect(head).toMatchObject({ format: 'gatehouse-audit-head-v1', application_id: apps.untouched, seq: 4 });
    expect(auditHeadSignedBy(head, (await t.store.findApplication(apps.untouched))!.signing.response!.publicKey)).toBe(true);
  });

  it('a CLI owner sign-in is recorded as the owner (no address), and the chain still verifies', async () => {
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
    // Verify never links: an entry the server has not linked yet is reported as waiting.
    const waiting = await verify(apps.untouched);
    expect(waiting.stdout).toBe(`audit chain of ${apps.untouched}: OK, 4 entries verified\n1 entry waiting for the server's chainer (not verified yet)\n`);
    expect(waiting.code).toBe(0);
    await t.chainer.drain();
    expect((await verify(apps.untouched)).stdout).toBe(`audit chain of ${apps.untouched}: OK, 5 entries verified\n`);
  });

  it('after retention pruned the oldest entries, starts at the oldest left; deleting that one is still noticed', async () => {
    // The purge covers every application (the others' entries are all older); this one loses its first two.
    await t.store.pruneEvents(cutoff, t.clock.now(), SYSTEM);
    await t.chainer.drain();
    // Seq 5 is the owner's CLI sign-in of the test before, seq 6 the audit.pruned entry.
    expect((await t.store.chainedEvents(apps.pruned, 0, 10)).map((e) => e.seq)).toEqual([3, 4, 5, 6]);
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
