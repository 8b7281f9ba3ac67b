// The console's audit log (docs/api.md, Audit log): filters, the paging cursor, the export, and
// another owner's application answered as missing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, consoleRequest, createApplication, startTestApp } from '../support/test-app.js';
import { otherOwnerToken, bearerOf } from './console-helpers.js';
import { member } from '../support/integration.js';
import { auditHeadSignedBy, type SignedAuditHead } from '../../src/signing/audit-head.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t);
});
afterEach(() => t.close());

const audit = (query = '') => consoleRequest(t, 'GET', `/applications/${app.id}/audit${query}`);

/** Five variable changes a minute apart, the second of them a deletion; then the chain linked. */
async function fiveChanges(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    if (i === 1) expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/variables/v0`)).statusCode).toBe(204);
    else expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/v${i}`, { value: `x${i}`, is_public: false })).statusCode).toBe(200);
    t.clock.advance(60_000);
  }
  await t.chainer.drain();
}

describe('the audit log', () => {
  it('pages newest first behind an opaque cursor, each entry chained', async () => {
    await fiveChanges();
    const first = await audit('?action=variable.changed&limit=2');
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.entries.map((e: { target: { id: string } }) => e.target.id)).toEqual(['v4', 'v3']);
    expect(body.entries[0]).toMatchObject({ application_id: app.id, actor: { type: 'owner' }, outcome: 'success', seq: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(typeof body.next_cursor).toBe('string');
    const second = (await audit(`?action=variable.changed&limit=2&cursor=${body.next_cursor}`)).json();
    expect(second.entries.map((e: { target: { id: string } }) => e.target.id)).toEqual(['v2', 'v0']);
    const third = (await audit(`?action=variable.changed&limit=2&cursor=${second.next_cursor}`)).json();
    expect(third.entries.map((e: { target: { id: string } }) => e.target.id)).toEqual(['v0']);
    expect(third.next_cursor).toBeNull();
  });

  it('filters by actor type, target and time', async () => {
    await fiveChanges();
    const byTarget = (await audit('?target_type=variable&target_id=v0')).json();
    expect(byTarget.entries.map((e: { data: { deleted: boolean } }) => e.data.deleted)).toEqual([true, false]);
    expect((await audit('?actor_type=end_user')).json().entries).toEqual([]);
    const since = new Date(t.clock.now() - 3 * 60_000).toISOString();
    const until = new Date(t.clock.now() - 60_000).toISOString();
    const window = (await audit(`?action=variable.changed&since=${since}&until=${until}`)).json();
    expect(window.entries.map((e: { target: { id: string } }) => e.target.id)).toEqual(['v3', 'v2']);
  });

  it('names the users, licenses and owner its entries point to by id, without touching the hashed entries', async () => {
    const alice = await member(t, app, 'alice', 'correct horse battery', 60, { hardware_id: 'alice-pc' });
    const license = (await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${alice.code}`)).json<{ id: string }>();
    expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${alice.id}/timeout`, { until: new Date(t.clock.now() + 60_000).toISOString() })).statusCode).toBe(200);
    // Another application's user: its id never resolves through this application's log.
    const other = await createApplication(t);
    const stranger = await member(t, other, 'mallory', 'correct horse battery', 60, { hardware_id: 'mallory-pc' });
    const page = (await audit()).json<{
      entries: Array<{ action: string; actor: { type: string; id: string | null }; target: { type: string; id: string; label: string | null } }>;
      names: Record<string, string>;
    }>();
    const activated = page.entries.find((e) => e.action === 'license.activated')!;
    expect(activated.actor).toMatchObject({ type: 'end_user', id: alice.id });
    expect(activated.target).toEqual({ type: 'license', id: license.id, label: null });
    expect(page.names[alice.id]).toBe('alice');
    expect(page.names[license.id]).toBe(alice.code);
    const timedOut = page.entries.find((e) => e.action === 'user.timed_out')!;
    expect(timedOut.actor.type).toBe('owner');
    expect(page.names[timedOut.actor.id!]).toBe('owner@example.com');
    expect(page.names[stranger.id]).toBeUndefined();
    expect(JSON.stringify(page.names)).not.toContain('mallory');
    // The export keeps the entries as hashed, with no names beside them.
    const exported = (await consoleRequest(t, 'GET', `/applications/${app.id}/audit.ndjson`)).body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(exported.some((e) => 'names' in e)).toBe(false);
  });

  it('refuses a cursor it did not hand out and a bad limit', async () => {
    expect((await audit('?cursor=bm9wZQ')).json().error_code).toBe('VALIDATION_FAILED');
    expect((await audit('?limit=0')).json().error_code).toBe('VALIDATION_FAILED');
    expect((await audit('?limit=999')).json().error_code).toBe('VALIDATION_FAILED');
    expect((await audit('?actor_type=robot')).json().error_code).toBe('VALIDATION_FAILED');
  });

  it('exports every matching entry as NDJSON, newest first', async () => {
    await fiveChanges();
    const res = await consoleRequest(t, 'GET', `/applications/${app.id}/audit.ndjson?action=variable.changed`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { target: { id: string }; seq: number });
    expect(lines.map((l) => l.target.id)).toEqual(['v4', 'v3', 'v2', 'v0', 'v0']);
    expect(lines.map((l) => l.seq)).toEqual([...lines.map((l) => l.seq)].sort((a, b) => b - a));
  });

  it("answers another owner's application as missing, for the page and the export", async () => {
    const other = bearerOf(await otherOwnerToken(t));
    for (const url of [`/api/console/applications/${app.id}/audit`, `/api/console/applications/${app.id}/audit.ndjson`]) {
      const res = await t.inject({ method: 'GET', url, headers: other });
      expect(res.statusCode).toBe(404);
      expect(res.json().error_code).toBe('APPLICATION_NOT_FOUND');
    }
  });

  it("exports the chain's head signed with the application's key; an empty chain has none, another owner's is missing", async () => {
    const empty = await consoleRequest(t, 'GET', `/applications/${app.id}/audit/head`);
    expect(empty.statusCode).toBe(404);
    expect(empty.json().error_code).toBe('NOT_FOUND');
    await fiveChanges();
    const res = await consoleRequest(t, 'GET', `/applications/${app.id}/audit/head`);
    expect(res.statusCode).toBe(200);
    const head = res.json<SignedAuditHead>();
    const newest = (await audit('?limit=1')).json().entries[0] as { seq: number; hash: string };
    expect(head).toMatchObject({ format: 'gatehouse-audit-head-v1', application_id: app.id, seq: newest.seq, hash: newest.hash, signed_at: new Date(t.clock.now()).toISOString() });
    const publicKey = (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().response_signing_public_key as string;
    expect(auditHeadSignedBy(head, publicKey)).toBe(true);
    // Tampered with, it no longer verifies.
    expect(auditHeadSignedBy({ ...head, seq: head.seq - 1 }, publicKey)).toBe(false);
    const other = await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/audit/head`, headers: bearerOf(await otherOwnerToken(t)) });
    expect(other.statusCode).toBe(404);
    expect(other.json().error_code).toBe('APPLICATION_NOT_FOUND');
  });

  it('offers no delete', async () => {
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/audit`)).statusCode).toBe(404);
  });
});
