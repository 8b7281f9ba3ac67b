import { describe, expect, it } from 'vitest';
import { assertBorrowable, assertSeatFree, floatingLeaseEnd, type SeatHolder, seatExhaustionDue, seatFreesAt, seatsInUse } from '../../src/domain/floating-seats.js';
import { expectDomainError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const MIN = 60_000;

const holder = (id: string, userId: string, hardwareId: string | null, over: Partial<SeatHolder> = {}): SeatHolder => ({
  id,
  userId,
  hardwareId,
  expiresAt: NOW + 60 * MIN,
  revokedAt: null,
  leaseExpiresAt: NOW + 10 * MIN,
  borrowed: false,
  ...over,
});

describe('floatingLeaseEnd', () => {
  it('is two heartbeat intervals away, 2 x 300 seconds without a setting', () => {
    expect(floatingLeaseEnd(NOW, 30)).toBe(NOW + 60_000);
    expect(floatingLeaseEnd(NOW, null)).toBe(NOW + 600_000);
  });
});

describe('seatsInUse', () => {
  it('counts live holders only: a lapsed lease, an expiry or a revocation frees the seat at its instant', () => {
    const hs = [holder('a', 'u1', 'hw-1'), holder('b', 'u2', 'hw-2', { leaseExpiresAt: NOW }), holder('c', 'u3', 'hw-3', { expiresAt: NOW }), holder('d', 'u4', 'hw-4', { revokedAt: NOW - 1 })];
    expect(seatsInUse(hs, NOW)).toBe(1);
    expect(seatsInUse(hs, NOW - 1)).toBe(3);
  });

  it("a machine holds one seat by its session and its borrow together; another user's machine of the same id is another seat", () => {
    const hs = [holder('s', 'u1', 'hw-1'), holder('b', 'u1', 'hw-1', { borrowed: true, leaseExpiresAt: NOW + 30 * MIN }), holder('o', 'u2', 'hw-1')];
    expect(seatsInUse(hs, NOW)).toBe(2);
  });

  it('sessions without a hardware id are a seat each', () => {
    expect(seatsInUse([holder('a', 'u1', null), holder('b', 'u1', null)], NOW)).toBe(2);
  });
});

describe('assertSeatFree and Retry-After', () => {
  const full = [holder('a', 'u1', 'hw-1', { leaseExpiresAt: NOW + 90_500 }), holder('b', 'u2', 'hw-2', { leaseExpiresAt: NOW + 200_000 })];

  it('admits while seats remain and refuses the one past them', () => {
    expect(() => assertSeatFree(full.slice(0, 1), { id: 'n', userId: 'u3', hardwareId: 'hw-3' }, 2, NOW)).not.toThrow();
    const e = expectDomainError(() => assertSeatFree(full, { id: 'n', userId: 'u3', hardwareId: 'hw-3' }, 2, NOW), 'SEATS_EXHAUSTED');
    // The earliest lease lapses in 90.5 seconds: wait 91, rounded up.
    expect(e.details.retryAfterSeconds).toBe(91);
  });

  it('a machine already seated (a borrow of its own) needs no other seat', () => {
    const borrowed = [holder('a', 'u1', 'hw-1', { borrowed: true }), holder('b', 'u2', 'hw-2')];
    expect(() => assertSeatFree(borrowed, { id: 'n', userId: 'u1', hardwareId: 'hw-1' }, 2, NOW)).not.toThrow();
  });

  it("Retry-After follows the injected clock and takes a session's own expiry when it comes first", () => {
    const early = [holder('a', 'u1', 'hw-1', { expiresAt: NOW + 5_000, leaseExpiresAt: NOW + 600_000 })];
    expect(seatFreesAt(early, NOW)).toBe(NOW + 5_000);
    const e = expectDomainError(() => assertSeatFree(early, { id: 'n', userId: 'u2', hardwareId: 'hw-2' }, 1, NOW + 4_999), 'SEATS_EXHAUSTED');
    expect(e.details.retryAfterSeconds).toBe(1);
    expect(() => assertSeatFree(early, { id: 'n', userId: 'u2', hardwareId: 'hw-2' }, 1, NOW + 5_000)).not.toThrow();
    expect(seatFreesAt([], NOW)).toBeNull();
  });
});

describe('seatExhaustionDue', () => {
  it('is due first, then again a full minute later', () => {
    expect(seatExhaustionDue(null, NOW)).toBe(true);
    expect(seatExhaustionDue(NOW, NOW + MIN - 1)).toBe(false);
    expect(seatExhaustionDue(NOW, NOW + MIN)).toBe(true);
  });
});

describe('assertBorrowable', () => {
  it('takes 1..max_borrow_minutes whole minutes', () => {
    for (const minutes of [1, 30, 60]) expect(() => assertBorrowable({ maxBorrowMinutes: 60 }, minutes)).not.toThrow();
    for (const minutes of [0, 61, -5, 2.5]) expectDomainError(() => assertBorrowable({ maxBorrowMinutes: 60 }, minutes), 'VALIDATION_FAILED');
  });

  it('refuses a plan without borrowing and a user holding no floating seat', () => {
    expectDomainError(() => assertBorrowable({ maxBorrowMinutes: 0 }, 1), 'BORROWING_NOT_ALLOWED');
    expectDomainError(() => assertBorrowable(null, 1), 'BORROWING_NOT_ALLOWED');
  });
});
