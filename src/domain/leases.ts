// A session's lease: how long it lives without another heartbeat (docs/machines.md, "Heartbeats and leases").
import type { Instant } from './time.js';

/** A lease lasts this many heartbeat intervals, so one late or lost beat does not end the session. */
export const LEASE_INTERVALS = 2;

/** The end of a lease taken or renewed at `now` for a heartbeat every `intervalSeconds`. */
export function leaseEnd(now: Instant, intervalSeconds: number): Instant {
  return now + LEASE_INTERVALS * intervalSeconds * 1000;
}

/** The lease a session opened at `now` takes: none while the application asks for no heartbeats. */
export function openingLease(now: Instant, intervalSeconds: number | null): Instant | null {
  return intervalSeconds === null ? null : leaseEnd(now, intervalSeconds);
}

/** The interval a leased session renews with once its application asks for no heartbeats (a
 * floating seat's, which needs a lease either way). */
export const LEASE_SECONDS_WITHOUT_SETTING = 300;

/** What a heartbeat at `now` does: a leased session's lease moves on; a session opened without one
 * keeps none and answers its own expiry (docs/machines.md, "Heartbeats and leases"). */
export function heartbeatLease(
  session: { expiresAt: Instant; leaseExpiresAt: Instant | null },
  intervalSeconds: number | null,
  now: Instant,
): { renew: true; leaseExpiresAt: Instant } | { renew: false; leaseExpiresAt: Instant } {
  if (session.leaseExpiresAt === null) return { renew: false, leaseExpiresAt: session.expiresAt };
  return { renew: true, leaseExpiresAt: leaseEnd(now, intervalSeconds ?? LEASE_SECONDS_WITHOUT_SETTING) };
}
