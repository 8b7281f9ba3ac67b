// The nonces of signed requests: each accepted once per application, also across connections.
import { expect } from 'vitest';
import type { ContractContext } from './store-contract.js';
import { seedApp, T0 } from './fixtures.js';

const HELD_MS = 600_000;
const used = (applicationId: string, nonce: string, now = T0) => ({ applicationId, nonce, now, heldUntil: now + HELD_MS });

export function requestNonceContract({ store, connect, test, section }: ContractContext): void {
  section('request nonces', () => {
    test('recordRequestNonce accepts a nonce once per application while it is held', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      expect(await store().recordRequestNonce(used(app.id, 'nonce-aaaaaaaaaaaa'))).toBe(true);
      expect(await store().recordRequestNonce(used(app.id, 'nonce-aaaaaaaaaaaa', T0 + HELD_MS - 1))).toBe(false);
      // Another application's nonces are its own; nonces differ by case.
      expect(await store().recordRequestNonce(used(other.id, 'nonce-aaaaaaaaaaaa'))).toBe(true);
      expect(await store().recordRequestNonce(used(app.id, 'NONCE-aaaaaaaaaaaa'))).toBe(true);
    });

    test('recordRequestNonce takes over a nonce no longer held, and holds it anew', async () => {
      const { app } = await seedApp(store());
      expect(await store().recordRequestNonce(used(app.id, 'nonce-bbbbbbbbbbbb'))).toBe(true);
      const later = T0 + HELD_MS;
      expect(await store().recordRequestNonce(used(app.id, 'nonce-bbbbbbbbbbbb', later))).toBe(true);
      expect(await store().recordRequestNonce(used(app.id, 'nonce-bbbbbbbbbbbb', later + 1))).toBe(false);
    });

    test('of many racing records of one nonce on two connections, exactly one is accepted', async () => {
      const { app } = await seedApp(store());
      const peer = await connect();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? store() : peer).recordRequestNonce(used(app.id, 'nonce-racing-racing'))));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test('purgeRequestNonces deletes only the nonces no longer held', async () => {
      const { app } = await seedApp(store());
      await store().recordRequestNonce(used(app.id, 'nonce-old-old-old-old'));
      await store().recordRequestNonce(used(app.id, 'nonce-new-new-new-new', T0 + 1000));
      expect(await store().purgeRequestNonces(T0 + HELD_MS)).toBe(1);
      expect(await store().purgeRequestNonces(T0 + HELD_MS)).toBe(0);
      expect(await store().recordRequestNonce(used(app.id, 'nonce-new-new-new-new', T0 + HELD_MS))).toBe(false);
    });

    test("an application's nonces go with it", async () => {
      const { app } = await seedApp(store());
      await store().recordRequestNonce(used(app.id, 'nonce-gone-gone-gone'));
      expect(await store().deleteApplication(app.id)).toBe(true);
      expect(await store().purgeRequestNonces(T0 + HELD_MS)).toBe(0);
    });
  });
}
