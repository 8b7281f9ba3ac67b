// Events are stored as facts and rendered when shown (docs/choices.md, "Events are data"). Rows
// written before that hold the rendered data (data_form 'rendered'): they show, export and verify
// as they always did, beside rows of facts; a row's form is sealed with it.
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainedEntryOf } from '../../src/application/events/chain-entry.js';
import { verifyAuditChain } from '../../src/application/events/verify-audit.js';
import type { EventRecord } from '../../src/application/ports/event-store.js';
import { entrySeal } from '../../src/domain/audit-chain.js';
import { shown } from '../support/shown-events.js';
import { type TestApp, consoleRequest, createApplication, startTestApp } from '../support/test-app.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t);
});
afterEach(() => t.close());

/** Runs one UPDATE of the events table on the test's database, SQLite or PostgreSQL. */
async function updateEvent(id: string, set: { data?: string; changes?: string | null; dataForm: string; seal?: string | null }): Promise<void> {
  const columns = Object.entries({ data: set.data, changes: set.changes, data_form: set.dataForm, seal: set.seal }).filter(([, v]) => v !== undefined);
  if (t.databaseUrl === null) {
    const db = new Database(t.dbPath);
    try {
      db.prepare(`update events set ${columns.map(([c]) => `${c} = ?`).join(', ')} where id = ?`).run(...columns.map(([, v]) => v), id);
    } finally {
      db.close();
    }
    return;
  }
  const sql = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`update events set ${columns.map(([c], i) => `${c} = $${i + 1}`).join(', ')} where id = $${columns.length + 1}`, [...columns.map(([, v]) => v ?? null), id]);
  } finally {
    await sql.end();
  }
}

/** The row as the previous release wrote it: the rendered data and changes, sealed over them. */
async function writtenBeforeFacts(e: EventRecord): Promise<EventRecord> {
  const old = shown(e);
  await updateEvent(e.id, {
    data: JSON.stringify(old.data),
    changes: old.changes === null ? null : JSON.stringify(old.changes),
    dataForm: 'rendered',
    seal: entrySeal(t.deps.auditChainKey, chainedEntryOf(old, 0)),
  });
  return old;
}

async function twoChanges(): Promise<EventRecord[]> {
  expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/motd`, { value: 'hello', is_public: true })).statusCode).toBe(200);
  expect((await consoleRequest(t, 'POST', `/applications/${app.id}/bans`, { type: 'ip', value: '203.0.113.9', reason: 'abuse' })).statusCode).toBe(201);
  const recorded = await t.store.listEvents(app.id, {}, { limit: 100 });
  expect(recorded.map((e) => [e.action, e.dataForm])).toEqual([
    ['ban.created', 'facts'],
    ['variable.changed', 'facts'],
  ]);
  return recorded;
}

describe('events stored as facts, and rows stored rendered before them', () => {
  it('an old-form row shows as stored in the log and the export, is linked, and the chain verifies', async () => {
    const [ban, variable] = await twoChanges();
    const old = await writtenBeforeFacts(variable!);
    // The facts differ from what is shown: the renderer, not the store, makes the wire form.
    expect(variable!.data).not.toEqual(old.data);
    expect(old.data).toEqual({
      scope: 'application',
      variable: { name: 'motd', value: { length: 5, sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' }, is_public: true },
      deleted: false,
    });
    expect(await t.chainer.drain()).toBe(2);

    const entries = (await consoleRequest(t, 'GET', `/applications/${app.id}/audit`)).json().entries as { id: string; data: unknown; changes: unknown; seq: number }[];
    expect(entries.map((e) => [e.id, e.data, e.changes])).toEqual([
      [ban!.id, shown(ban!).data, null],
      [variable!.id, old.data, old.changes],
    ]);
    expect(entries[0]!.data).toMatchObject({ ban: { type: 'ip', value: '203.0.113.9', reason: 'abuse', created_at: expect.any(String) }, propagated_from: null });
    const exported = (await consoleRequest(t, 'GET', `/applications/${app.id}/audit.ndjson`)).body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(exported).toEqual(entries);

    const report = await verifyAuditChain(t.deps, app.id);
    expect(report).toMatchObject({ ok: true, chain: { ok: true, count: 2 }, pending: 0, unlinked: { count: 0 } });
  });

  it('a row of facts whose form is changed in SQL is not linked: the seal covers the form', async () => {
    const [ban] = await twoChanges();
    await updateEvent(ban!.id, { dataForm: 'rendered' });
    expect(await verifyAuditChain(t.deps, app.id)).toMatchObject({ pending: 1, unlinked: { count: 1, ids: [ban!.id] } });
    await t.chainer.drain();
    const report = await verifyAuditChain(t.deps, app.id);
    expect(report).toMatchObject({ ok: false, chain: { ok: true, count: 1 }, unlinked: { count: 1, ids: [ban!.id] } });
  });
});
