// The nonces of signed integration requests (docs/api.md, Request signing): each is accepted once per
// application, across every instance and process. Instants are epoch milliseconds.
import type { Instant } from '../../domain/time.js';

export interface UsedNonce {
  applicationId: string;
  nonce: string;
  now: Instant;
  /** Until when the nonce counts as seen (nonceHeldUntil of the domain). */
  heldUntil: Instant;
}

export interface RequestNonceStore {
  /** ATOMIC: records the nonce as seen until `heldUntil` and answers true, unless the application
   * holds it already (recorded with a `heldUntil` after `now`): then false, and nothing changes.
   * Of two callers recording one nonce at once, in any processes, exactly one gets true. */
  recordRequestNonce(used: UsedNonce): Promise<boolean>;
  /** Deletes the nonces no longer held at `now`; returns how many went. */
  purgeRequestNonces(now: Instant): Promise<number>;
}
