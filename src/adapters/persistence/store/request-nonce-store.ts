// Nonces of signed requests, each recorded by one statement (docs/architecture.md, "Persistence notes").
import { lte, sql } from 'drizzle-orm';
import type { RequestNonceStore } from '../../../application/ports/request-nonce-store.js';
import type { Dialect } from '../dialect.js';

export function requestNonceStore(d: Dialect): RequestNonceStore {
  const { requestNonces } = d.t;
  return {
    async recordRequestNonce({ applicationId, nonce, now, heldUntil }) {
      const lapsedTakenOver = { target: [requestNonces.applicationId, requestNonces.nonce], set: { heldUntil: sql`excluded.held_until` }, setWhere: lte(requestNonces.heldUntil, now) };
      const written = await d.write((w) => w.insert(requestNonces).values({ applicationId, nonce, heldUntil }).onConflictDoUpdate(lapsedTakenOver).returning({ nonce: requestNonces.nonce }));
      return written.length === 1;
    },
    async purgeRequestNonces(now) {
      const gone = await d.write((w) => w.delete(requestNonces).where(lte(requestNonces.heldUntil, now)).returning({ nonce: requestNonces.nonce }));
      return gone.length;
    },
  };
}
