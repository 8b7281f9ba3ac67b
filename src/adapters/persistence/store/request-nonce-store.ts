// The nonces of signed requests. Recording one is a single INSERT ... ON CONFLICT DO UPDATE ...
// WHERE statement: the primary key (application, nonce) lets exactly one of two racing inserts
// in any processes write the row, and a row no longer held is taken over in the same statement.
// The row comes back (RETURNING) only when this call wrote it, which is the answer.
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
