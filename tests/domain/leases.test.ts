import { describe, expect, it } from 'vitest';
import { heartbeatLease, LEASE_SECONDS_WITHOUT_SETTING, leaseEnd, openingLease } from '../../src/domain/leases.js';
import { isSessionLive, planSession, sessionRejection, type SessionState } from '../../src/domain/sessions.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const HOUR = 3_600_000;

const leased = (id: string, hardwareId: string, leaseExpiresAt: number | null): SessionState => ({ id, hardwareId, expiresAt: NOW + HOUR, revokedAt: null, leaseExpiresAt });

describe('leaseEnd', () => {
  it('is two intervals after the beat, whatever the interval (floating seats pass their own)', () => {
    expect(leaseEnd(NOW, 30)).toBe(NOW + 60_000);
    expect(leaseEnd(NOW, 300)).toBe(NOW + 600_000);
    expect(leaseEnd(NOW, 86_400)).toBe(NOW + 2 * 86_400_000);
  });

  it('opens no lease while heartbeats are off', () => {
    expect(openingLease(NOW, null)).toBeNull();
    expect(openingLease(NOW, 45)).toBe(NOW + 90_000);
  });
});

describe('a leased session over time', () => {
  it('lives until two intervals without a beat, and a beat in time keeps it past that', () => {
    const opened = leased('s', 'hw-1', openingLease(NOW, 30));
    expect(isSessionLive(opened, NOW + 59_999)).toBe(true);
    expect(sessionRejection(opened, NOW + 60_000)?.code).toBe('SESSION_EXPIRED');
    // A beat at 50 s moves the lease: the session lives past the first two intervals.
    const beaten = { ...opened, leaseExpiresAt: leaseEnd(NOW + 50_000, 30) };
    expect(isSessionLive(beaten, NOW + 100_000)).toBe(true);
    expect(isSessionLive(beaten, NOW + 110_000)).toBe(false);
  });

  it('frees its seat once lapsed: a second machine gets in under a cap of one', () => {
    const crashed = leased('s', 'hw-1', openingLease(NOW, 30));
    expect(() => planSession([crashed], 'hw-2', 1, NOW + 59_999)).toThrow();
    expect(planSession([crashed], 'hw-2', 1, NOW + 60_000)).toEqual({ replace: [] });
  });

  it('a session without a lease lives by its expiry alone', () => {
    const unleased = leased('s', 'hw-1', null);
    expect(isSessionLive(unleased, NOW + HOUR - 1)).toBe(true);
    expect(isSessionLive(unleased, NOW + HOUR)).toBe(false);
  });
});

describe('heartbeatLease', () => {
  it('moves a lease by the application interval, or by the fallback once heartbeats were turned off', () => {
    const s = { expiresAt: NOW + HOUR, leaseExpiresAt: NOW + 10_000 };
    expect(heartbeatLease(s, 30, NOW)).toEqual({ renew: true, leaseExpiresAt: NOW + 60_000 });
    expect(heartbeatLease(s, null, NOW)).toEqual({ renew: true, leaseExpiresAt: NOW + 2 * LEASE_SECONDS_WITHOUT_SETTING * 1000 });
  });

  it('gives no lease to a session opened without one: it answers its own expiry', () => {
    expect(heartbeatLease({ expiresAt: NOW + HOUR, leaseExpiresAt: null }, 30, NOW)).toEqual({ renew: false, leaseExpiresAt: NOW + HOUR });
  });
});
