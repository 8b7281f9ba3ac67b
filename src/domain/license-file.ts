import type { Membership } from './membership.js';
import { type Instant, MINUTE_MS } from './time.js';

const SECOND_MS = 1000;

/** When an offline license file issued `now` expires (docs/signing.md, "Offline license files"): after
 * `ttlMinutes` but never after the membership it grants, rounded down to a whole second as the file's
 * `exp` carries it, so the answer's `expires_at` is exactly the file's expiry. */
export function licenseFileExpiry(now: Instant, ttlMinutes: number, membership: Membership): Instant {
  const byTtl = now + ttlMinutes * MINUTE_MS;
  const expiry = membership.isLifetime || membership.activeUntil === null ? byTtl : Math.min(byTtl, membership.activeUntil);
  return Math.floor(expiry / SECOND_MS) * SECOND_MS;
}
