// Nonces of signed requests, recorded by one INSERT ... ON CONFLICT DO UPDATE ... WHERE: the
// primary key lets one of two racing inserts in any process win, a lapsed row is taken over in
// the same statement, and RETURNING answers whether this call wrote it.
import { lte, sql } from 'drizzle-orm';
import type { RequestNonceStore } from '../../../application/ports/request-nonce-store.js';
import type { Dialect } from '../dialect.js';

export function requestNonceStore(d: Dialect): RequestNonceStore {
  const { requestNonces } = d.t;
  return {
    async recordRequestNonce({ applicationId, nonce, now, heldUntil }) {
      const written = await d.write((w) =>
        w
          .insert(requestNonces)
          .values({ applicationId, nonce, heldUntil })
          .onConflictDoUpdate({
            target: [requestNonces.applicationId, requestNonces.nonce],
            set: { heldUntil: sql`excluded.held_until` },
            setWhere: lte(requestNonces.heldUntil, now),
          })
          .returning({ nonce: requestNonces.nonce }),
      );
      return written.length === 1;
    },
    async purgeRequestNonces(now) {
      const gone = await d.write((w) => w.delete(requestNonces).where(lte(requestNonces.heldUntil, now)).returning({ nonce: requestNonces.nonce }));
      return gone.length;
    },
  };
}
