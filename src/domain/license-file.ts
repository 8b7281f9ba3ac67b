import { accessEndsAt } from './grace.js';
import type { Membership } from './membership.js';
import { type Instant, MINUTE_MS } from './time.js';

const SECOND_MS = 1000;

/** When an offline license file issued `now` expires (docs/signing.md, "Offline license files"): after
 * `ttlMinutes` but never after the access it grants (grace included: `graceMinutes`), rounded down to a whole second as the file's
 * `exp` carries it, so the answer's `expires_at` is exactly the file's expiry. */
export function licenseFileExpiry(now: Instant, ttlMinutes: number, membership: Membership, graceMinutes = 0): Instant {
  const byTtl = now + ttlMinutes * MINUTE_MS;
  const ends = accessEndsAt(membership, graceMinutes);
  const expiry = ends === null ? byTtl : Math.min(byTtl, ends);
  return Math.floor(expiry / SECOND_MS) * SECOND_MS;
}
