// The audit log's hash chain: events linked per application after their commit, in one
// transaction with the chain's head, by any number of chainers at once; retention prunes a prefix.
import { expect } from 'vitest';
import type { ContractContext } from './store-contract.js';
import { seedApp, T0 } from './fixtures.js';
import type { Store } from '../../src/application/ports/store.js';
import type { EventDraft } from '../../src/application/events/event-draft.js';
import { chainedEntryOf } from '../../src/application/events/chain-entry.js';
import { verifyChain } from '../../src/domain/audit-chain.js';
import { UNKEYED_AUDIT_KEY } from '../../src/adapters/persistence/sql-store.js';
import { DAY_MS } from '../../src/domain/overview.js';
import { SYSTEM } from '../../src/application/events/actor.js';

const draft = (applicationId: string, i: number): EventDraft => ({
  applicationId,
  action: 'variable.changed',
  target: { type: 'variable', id: `v${i}`, label: `v${i}` },
  data: { variable: { name: `v${i}`, value: String(i), nested: { b: 2, a: [1, 'x'] } } },
  changes: { value: [null, String(i)] },
});

/** The application's chain as verify reads it. */
async function verdict(store: Store, applicationId: string) {
  const entries = (await store.chainedEvents(applicationId, 0, 10_000)).map((e) => ({ ...chainedEntryOf(e, e.seq!), hash: e.hash! }));
  return verifyChain(UNKEYED_AUDIT_KEY, entries, await store.chainHead(applicationId));
}

export function eventContract({ store, connect, test, section }: ContractContext): void {
  section('events and the audit chain', () => {
    test('recorded events start unchained; chainEvents links each application from seq 1, and the chain verifies', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      for (let i = 0; i < 5; i++) await store().recordEvent(draft(i % 2 ? other.id : app.id, i), T0 + i, SYSTEM);
      const before = await store().listEvents(app.id, {}, { limit: 10 });
      expect(before.map((e) => e.seq)).toEqual([null, null, null]);
      expect(await store().chainEvents(100)).toBe(5);
      expect(await store().chainEvents(100)).toBe(0);
      const chained = await store().chainedEvents(app.id, 0, 10);
      expect(chained.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(chained.map((e) => e.target.id)).toEqual(['v0', 'v2', 'v4']);
      expect((await store().chainedEvents(other.id, 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
      expect(await store().chainHead(app.id)).toEqual({ seq: 3, hash: chained[2]!.hash });
      expect(await verdict(store(), app.id)).toEqual({ ok: true, count: 3, legacy: 0 });
      expect(await verdict(store(), other.id)).toEqual({ ok: true, count: 2, legacy: 0 });
      // Later events continue the chain.
      await store().recordEvent(draft(app.id, 9), T0 + 9, SYSTEM);
      expect(await store().chainEvents(1)).toBe(1);
      expect(await verdict(store(), app.id)).toEqual({ ok: true, count: 4, legacy: 0 });
    });

    test('two chainers on two connections, racing over many events, link each exactly once into one chain', async () => {
      const peer = await connect();
      const apps = [(await seedApp(store())).app, (await seedApp(store())).app];
      for (let i = 0; i < 60; i++) await store().recordEvent(draft(apps[i % 2]!.id, i), T0 + i, SYSTEM);
      const drain = async (s: Store) => {
        let n = 0;
        for (let linked = -1; linked !== 0;) n += linked = await s.chainEvents(7);
        return n;
      };
      const linked = await Promise.all([drain(store()), drain(peer), drain(store()), drain(peer)]);
      // A chainer that skipped a locked head may stop early; one more pass finishes anything left.
      const rest = await drain(store());
      expect(linked.reduce((a, b) => a + b, 0) + rest).toBe(60);
      for (const app of apps) {
        expect(await verdict(store(), app.id)).toEqual({ ok: true, count: 30, legacy: 0 });
        expect((await store().chainedEvents(app.id, 0, 100)).map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      }
    });

    test('pruneEvents deletes the chain up to its newest old entry, records audit.pruned, and the rest verifies', async () => {
      const { app } = await seedApp(store());
      for (let i = 0; i < 4; i++) await store().recordEvent(draft(app.id, i), T0 + i * DAY_MS, SYSTEM);
      await store().chainEvents(100);
      // Unchained events are never pruned: their place in the chain is not known yet.
      await store().recordEvent(draft(app.id, 99), T0, SYSTEM);
      expect(await store().pruneEvents(T0 + 2 * DAY_MS, T0 + 10 * DAY_MS, SYSTEM)).toBe(2);
      await store().chainEvents(100);
      const left = await store().chainedEvents(app.id, 0, 100);
      expect(left.map((e) => [e.seq, e.action])).toEqual([
        [3, 'variable.changed'],
        [4, 'variable.changed'],
        [5, 'variable.changed'],
        [6, 'audit.pruned'],
      ]);
      // With the removed entry's hash, so the first entry left is recomputed rather than trusted.
      expect(left[3]).toMatchObject({ actor: { type: 'system' }, data: { through_seq: 2, through_hash: expect.stringMatching(/^[0-9a-f]{64}$/), removed: 2 } });
      expect(await verdict(store(), app.id)).toEqual({ ok: true, count: 4, legacy: 0 });
      expect(await store().pruneEvents(T0, T0 + 10 * DAY_MS, SYSTEM)).toBe(0);
    });

    test('rows written by a store without the key are never linked: marked unlinked, listed, and the chain goes on', async () => {
      const { app } = await seedApp(store());
      await store().recordEvent(draft(app.id, 0), T0, SYSTEM);
      // Someone with the database but not the master key: their rows carry no valid seal.
      const intruder = await connect({ auditKey: new Uint8Array(32).fill(9) });
      await intruder.recordEvent(draft(app.id, 1), T0 + 1, SYSTEM);
      await store().recordEvent(draft(app.id, 2), T0 + 2, SYSTEM);
      // The chainer takes up all three and links only the two sealed rows.
      expect(await store().chainEvents(100)).toBe(3);
      const chained = await store().chainedEvents(app.id, 0, 10);
      expect(chained.map((e) => e.target.id)).toEqual(['v0', 'v2']);
      expect(await verdict(store(), app.id)).toEqual({ ok: true, count: 2, legacy: 0 });
      const unlinked = await store().unlinkedEvents(app.id, 10);
      expect(unlinked.map((e) => [e.target.id, e.seq, e.hash])).toEqual([['v1', null, 'unlinked']]);
      expect(await store().chainEvents(100)).toBe(0);
      expect(await store().newestChained(app.id, 'variable.changed')).toMatchObject({ seq: 2, target: { id: 'v2' } });
    });

    test('listEvents filters and pages newest first by insertion order', async () => {
      const { app } = await seedApp(store());
      for (let i = 0; i < 5; i++) await store().recordEvent({ ...draft(app.id, i), action: i % 2 ? 'a.odd' : 'a.even' }, T0 + i, SYSTEM);
      const all = await store().listEvents(app.id, {}, { limit: 10 });
      expect(all.map((e) => e.target.id)).toEqual(['v4', 'v3', 'v2', 'v1', 'v0']);
      const page = await store().listEvents(app.id, {}, { limit: 2, beforePos: all[1]!.pos });
      expect(page.map((e) => e.target.id)).toEqual(['v2', 'v1']);
      expect((await store().listEvents(app.id, { action: 'a.odd' }, { limit: 10 })).map((e) => e.target.id)).toEqual(['v3', 'v1']);
      expect((await store().listEvents(app.id, { since: T0 + 1, until: T0 + 3 }, { limit: 10 })).map((e) => e.target.id)).toEqual(['v2', 'v1']);
    });
  });
}
