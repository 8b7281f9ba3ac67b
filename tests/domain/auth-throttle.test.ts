import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IP_WINDOW_MS,
  accountAfterSuccess,
  currentIpCounter,
  freshAccountCounter,
  ipAfterSuccess,
  lockDuration,
  reserveAccountAttempt,
  reserveIpAttempt,
  type AccountCounter,
  type IpCounter,
} from '../../src/domain/auth-throttle.js';
import { DomainError } from '../../src/domain/errors.js';
import { MINUTE_MS } from '../../src/domain/time.js';
import { expectDomainError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const DAY_MS = 24 * 60 * MINUTE_MS;

/** Folds `n` account reservations at one instant; counts those let through. */
function foldAccount(start: AccountCounter, n: number, threshold: number, now: number) {
  let c = start;
  let allowed = 0;
  let refused = 0;
  for (let i = 0; i < n; i++) {
    try {
      c = reserveAccountAttempt(c, threshold, now);
      allowed++;
    } catch (e) {
      if (!(e instanceof DomainError) || e.code !== 'ACCOUNT_LOCKED') throw e;
      refused++;
    }
  }
  return { counter: c, allowed, refused };
}

/** Reserves and fails attempts until the account locks; returns the locked counter. */
function lockAccount(start: AccountCounter, threshold: number, now: number): AccountCounter {
  let c = start;
  for (let i = 0; i < threshold; i++) c = reserveAccountAttempt(c, threshold, now);
  expect(c.lockedUntil).not.toBeNull();
  return c;
}

describe('lockDuration', () => {
  it('starts at one minute and doubles', () => {
    expect(lockDuration(0)).toBe(MINUTE_MS);
    expect(lockDuration(1)).toBe(2 * MINUTE_MS);
    expect(lockDuration(2)).toBe(4 * MINUTE_MS);
    expect(lockDuration(10)).toBe(1024 * MINUTE_MS);
  });

  it('is capped at one day, also for huge lockout counts', () => {
    expect(lockDuration(11)).toBe(DAY_MS);
    expect(lockDuration(20)).toBe(DAY_MS);
    expect(lockDuration(1000)).toBe(DAY_MS);
    expect(lockDuration(Number.MAX_SAFE_INTEGER)).toBe(DAY_MS);
  });

  it('never shrinks as lockouts grow', () => {
    fc.assert(
      fc.property(fc.nat(10_000), (n) => {
        expect(lockDuration(n + 1)).toBeGreaterThanOrEqual(lockDuration(n));
        expect(lockDuration(n)).toBeLessThanOrEqual(DAY_MS);
      }),
    );
  });
});

describe('reserveAccountAttempt', () => {
  it('counts attempts up below the threshold', () => {
    let c = freshAccountCounter;
    for (let i = 1; i < 10; i++) {
      c = reserveAccountAttempt(c, 10, NOW);
      expect(c).toEqual({ failures: i, lockedUntil: null, lockouts: 0 });
    }
  });

  it('the threshold-th attempt is let through and starts a lock of lockDuration', () => {
    const nine: AccountCounter = { failures: 9, lockedUntil: null, lockouts: 0 };
    expect(reserveAccountAttempt(nine, 10, NOW)).toEqual({ failures: 0, lockedUntil: NOW + lockDuration(0), lockouts: 1 });
  });

  it('refused while locked with ACCOUNT_LOCKED and retryAfterSeconds', () => {
    const locked = lockAccount(freshAccountCounter, 10, NOW);
    const e = expectDomainError(() => reserveAccountAttempt(locked, 10, NOW), 'ACCOUNT_LOCKED');
    expect(e.details.retryAfterSeconds).toBe(60);
    expect(expectDomainError(() => reserveAccountAttempt(locked, 10, NOW + 30_000), 'ACCOUNT_LOCKED').details.retryAfterSeconds).toBe(30);
    // Rounded up, and at least one second.
    expect(expectDomainError(() => reserveAccountAttempt(locked, 10, NOW + 59_500), 'ACCOUNT_LOCKED').details.retryAfterSeconds).toBe(1);
    expect(expectDomainError(() => reserveAccountAttempt(locked, 10, NOW + 59_999), 'ACCOUNT_LOCKED').details.retryAfterSeconds).toBe(1);
    expect(expectDomainError(() => reserveAccountAttempt(locked, 10, NOW + 1_001), 'ACCOUNT_LOCKED').details.retryAfterSeconds).toBe(59);
  });

  it('a refused attempt leaves the counter as it was', () => {
    const locked = lockAccount(freshAccountCounter, 3, NOW);
    const snapshot = { ...locked };
    expectDomainError(() => reserveAccountAttempt(locked, 3, NOW + 1), 'ACCOUNT_LOCKED');
    expect(locked).toEqual(snapshot);
  });

  it('attempts are allowed again once the lock expires (at lockedUntil)', () => {
    const locked = lockAccount(freshAccountCounter, 10, NOW);
    const until = locked.lockedUntil as number;
    expectDomainError(() => reserveAccountAttempt(locked, 10, until - 1), 'ACCOUNT_LOCKED');
    expect(reserveAccountAttempt(locked, 10, until)).toEqual({ failures: 1, lockedUntil: until, lockouts: 1 });
  });

  it('each later lock is longer (growing), up to the cap', () => {
    let c = freshAccountCounter;
    let t = NOW;
    const lengths: number[] = [];
    for (let i = 0; i < 14; i++) {
      c = lockAccount(c, 10, t);
      const until = c.lockedUntil as number;
      lengths.push(until - t);
      t = until; // the lock has just expired
    }
    expect(lengths.slice(0, 4)).toEqual([MINUTE_MS, 2 * MINUTE_MS, 4 * MINUTE_MS, 8 * MINUTE_MS]);
    for (let i = 1; i < lengths.length; i++) expect(lengths[i]).toBeGreaterThanOrEqual(lengths[i - 1] as number);
    expect(lengths.at(-1)).toBe(DAY_MS);
    expect(c.lockouts).toBe(14);
  });

  it('50 reservations at threshold 10 at one instant: exactly 10 allowed', () => {
    const { counter, allowed, refused } = foldAccount(freshAccountCounter, 50, 10, NOW);
    expect(allowed).toBe(10);
    expect(refused).toBe(40);
    expect(counter.lockedUntil).toBe(NOW + MINUTE_MS);
  });

  it('at one instant, never more than threshold attempts pass', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.nat(200), (threshold, n) => {
        expect(foldAccount(freshAccountCounter, n, threshold, NOW).allowed).toBe(Math.min(n, threshold));
      }),
    );
  });

  it('threshold 1 locks on the first attempt', () => {
    expect(reserveAccountAttempt(freshAccountCounter, 1, NOW)).toEqual({ failures: 0, lockedUntil: NOW + MINUTE_MS, lockouts: 1 });
  });
});

describe('accountAfterSuccess', () => {
  it('resets the count, any lock and the growth of later locks', () => {
    expect(accountAfterSuccess()).toEqual({ failures: 0, lockedUntil: null, lockouts: 0 });
    let c = lockAccount(freshAccountCounter, 10, NOW);
    c = lockAccount(c, 10, c.lockedUntil as number);
    expect(c.lockouts).toBe(2);
    c = accountAfterSuccess();
    const t = NOW + DAY_MS;
    expect(reserveAccountAttempt(c, 10, t)).toEqual({ failures: 1, lockedUntil: null, lockouts: 0 });
    expect(lockAccount(c, 10, t).lockedUntil).toBe(t + MINUTE_MS);
  });

  it('a success between failures means they are no longer consecutive', () => {
    let c = freshAccountCounter;
    for (let i = 0; i < 9; i++) c = reserveAccountAttempt(c, 10, NOW);
    c = accountAfterSuccess();
    for (let i = 0; i < 9; i++) c = reserveAccountAttempt(c, 10, NOW);
    expect(c.lockedUntil).toBeNull();
    expect(c.failures).toBe(9);
  });
});

describe('IP counter', () => {
  it('a first attempt opens a window at now', () => {
    expect(currentIpCounter(null, NOW)).toEqual({ windowStart: NOW, failures: 0 });
    expect(reserveIpAttempt(null, 100, NOW)).toEqual({ windowStart: NOW, failures: 1 });
  });

  it('counts within the window and rolls over after 10 minutes', () => {
    expect(IP_WINDOW_MS).toBe(10 * MINUTE_MS);
    const c: IpCounter = { windowStart: NOW, failures: 42 };
    expect(currentIpCounter(c, NOW + IP_WINDOW_MS - 1)).toEqual(c);
    expect(currentIpCounter(c, NOW + IP_WINDOW_MS)).toEqual({ windowStart: NOW + IP_WINDOW_MS, failures: 0 });
    expect(reserveIpAttempt(c, 100, NOW + 5 * MINUTE_MS)).toEqual({ windowStart: NOW, failures: 43 });
    expect(reserveIpAttempt(c, 100, NOW + IP_WINDOW_MS + 1)).toEqual({ windowStart: NOW + IP_WINDOW_MS + 1, failures: 1 });
  });

  it('at the limit: RATE_LIMITED with retryAfterSeconds to the end of the window', () => {
    let c: IpCounter | null = null;
    for (let i = 0; i < 100; i++) c = reserveIpAttempt(c, 100, NOW + i * 1000);
    expect(c).toEqual({ windowStart: NOW, failures: 100 });
    const full = c;
    expect(expectDomainError(() => reserveIpAttempt(full, 100, NOW + 100_000), 'RATE_LIMITED').details.retryAfterSeconds).toBe(500);
    expect(expectDomainError(() => reserveIpAttempt(full, 100, NOW), 'RATE_LIMITED').details.retryAfterSeconds).toBe(600);
    expect(expectDomainError(() => reserveIpAttempt(full, 100, NOW + IP_WINDOW_MS - 1), 'RATE_LIMITED').details.retryAfterSeconds).toBe(1);
    // The next window lets attempts through again.
    expect(reserveIpAttempt(full, 100, NOW + IP_WINDOW_MS)).toEqual({ windowStart: NOW + IP_WINDOW_MS, failures: 1 });
  });

  it('at one instant, exactly `limit` attempts pass', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.nat(100), (limit, n) => {
        let c: IpCounter | null = null;
        let allowed = 0;
        for (let i = 0; i < n; i++) {
          try {
            c = reserveIpAttempt(c, limit, NOW);
            allowed++;
          } catch (e) {
            expect((e as DomainError).code).toBe('RATE_LIMITED');
          }
        }
        expect(allowed).toBe(Math.min(n, limit));
      }),
    );
  });

  it('a success gives one attempt back, never below 0', () => {
    expect(ipAfterSuccess({ windowStart: NOW, failures: 5 }, NOW + 1)).toEqual({ windowStart: NOW, failures: 4 });
    expect(ipAfterSuccess({ windowStart: NOW, failures: 0 }, NOW + 1)).toEqual({ windowStart: NOW, failures: 0 });
    expect(ipAfterSuccess(null, NOW)).toEqual({ windowStart: NOW, failures: 0 });
    // In a new window there is nothing to give back.
    expect(ipAfterSuccess({ windowStart: NOW, failures: 50 }, NOW + IP_WINDOW_MS)).toEqual({ windowStart: NOW + IP_WINDOW_MS, failures: 0 });
  });

  it('successful logins (reserve then give back) never exhaust the limit', () => {
    let c: IpCounter | null = null;
    for (let i = 0; i < 500; i++) {
      c = reserveIpAttempt(c, 100, NOW + i);
      c = ipAfterSuccess(c, NOW + i);
    }
    expect(c).toEqual({ windowStart: NOW, failures: 0 });
  });
});
