import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_WINDOW_MS,
  IDLE_COUNTER_RETENTION_MS,
  throttlePurgeCutoffs,
  accountWindowAfterSuccess,
  reserveAccountWindow,
  IN_FLIGHT_LEASE_MS,
  IP_WINDOW_MS,
  currentIpCounter,
  freshAccountCounter,
  ipAfterSuccess,
  lockDuration,
  reserveAccountAttempt,
  reserveIpAttempt,
  settleAccountAttempt,
  type AccountCounter,
  type AccountReservation,
  type IpCounter,
} from '../../src/domain/auth-throttle.js';
import { DomainError } from '../../src/domain/errors.js';
import { MINUTE_MS } from '../../src/domain/time.js';
import { expectDomainError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const DAY_MS = 24 * 60 * MINUTE_MS;
const LEASE = IN_FLIGHT_LEASE_MS;

const counter = (over: Partial<AccountCounter> = {}): AccountCounter => ({ ...freshAccountCounter, ...over });

/** The counter a reservation leads to; fails the test when the account was busy. */
function reservedNext(r: AccountReservation): AccountCounter {
  if (r.kind !== 'reserved') throw new Error('expected a reservation, the account was busy');
  return r.next;
}

const reserve = (c: AccountCounter, threshold: number, now: number) => reservedNext(reserveAccountAttempt(c, threshold, now));

/** Folds `n` parallel reservations at one instant, then settles every reserved one as a failure. */
function foldParallelGuesses(start: AccountCounter, n: number, threshold: number, now: number) {
  let c = start;
  let reserved = 0;
  let busy = 0;
  for (let i = 0; i < n; i++) {
    const r = reserveAccountAttempt(c, threshold, now);
    if (r.kind === 'busy') busy++;
    else {
      reserved++;
      c = r.next;
    }
  }
  const inFlight = c;
  for (let i = 0; i < reserved; i++) c = settleAccountAttempt(c, 'failure', threshold, now);
  return { inFlight, settled: c, reserved, busy };
}

/** Reserves `threshold` checks and settles them all as failures; returns the locked counter. */
function lockAccount(start: AccountCounter, threshold: number, now: number): AccountCounter {
  let c = start;
  for (let i = 0; i < threshold; i++) c = reserve(c, threshold, now);
  for (let i = 0; i < threshold; i++) c = settleAccountAttempt(c, 'failure', threshold, now);
  expect(c.lockedUntil).toBe(now + lockDuration(start.lockouts));
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
  it('counts a check in flight and sets its lease, leaving the failures alone', () => {
    expect(freshAccountCounter).toEqual({ failures: 0, lockedUntil: null, lockouts: 0, inFlight: 0, inFlightUntil: null });
    const one = reserve(freshAccountCounter, 10, NOW);
    expect(one).toEqual({ failures: 0, lockedUntil: null, lockouts: 0, inFlight: 1, inFlightUntil: NOW + LEASE });
    // A later reservation renews the lease.
    expect(reserve(one, 10, NOW + 5)).toEqual({ failures: 0, lockedUntil: null, lockouts: 0, inFlight: 2, inFlightUntil: NOW + 5 + LEASE });
    const failing = counter({ failures: 4, lockouts: 2, lockedUntil: NOW - 1, inFlight: 3, inFlightUntil: NOW + 100 });
    expect(reserve(failing, 10, NOW)).toEqual({ ...failing, inFlight: 4, inFlightUntil: NOW + LEASE });
  });

  it('busy once settled failures plus checks in flight reach the threshold, and nothing changes', () => {
    const live = { inFlightUntil: NOW + LEASE };
    for (const c of [
      counter({ inFlight: 10, ...live }),
      counter({ failures: 9, inFlight: 1, ...live }),
      counter({ failures: 7, inFlight: 3, ...live }),
      counter({ failures: 5, inFlight: 7, ...live }),
    ]) {
      const frozen = Object.freeze({ ...c });
      expect(reserveAccountAttempt(frozen, 10, NOW)).toEqual({ kind: 'busy' });
      expect(frozen).toEqual(c);
    }
    // One below the threshold still gets a turn.
    expect(reserveAccountAttempt(counter({ failures: 9 }), 10, NOW).kind).toBe('reserved');
    expect(reserveAccountAttempt(counter({ failures: 6, inFlight: 3, ...live }), 10, NOW).kind).toBe('reserved');
  });

  it('a lapsed lease (now >= inFlightUntil) drops the checks in flight', () => {
    const full = counter({ failures: 2, inFlight: 8, inFlightUntil: NOW + LEASE });
    expect(reserveAccountAttempt(full, 10, NOW + LEASE - 1)).toEqual({ kind: 'busy' });
    expect(reserveAccountAttempt(full, 10, NOW + LEASE)).toEqual({
      kind: 'reserved',
      next: { failures: 2, lockedUntil: null, lockouts: 0, inFlight: 1, inFlightUntil: NOW + 2 * LEASE },
    });
    // Settled failures do not lapse.
    const failed = counter({ failures: 9, inFlight: 1, inFlightUntil: NOW + LEASE });
    expect(reserve(failed, 10, NOW + DAY_MS)).toEqual({ ...failed, inFlight: 1, inFlightUntil: NOW + DAY_MS + LEASE });
    expect(reserveAccountAttempt(reserve(failed, 10, NOW + DAY_MS), 10, NOW + DAY_MS)).toEqual({ kind: 'busy' });
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

  it('a lock wins over a free turn, and a refused reservation leaves the counter as it was', () => {
    const locked = Object.freeze(counter({ lockedUntil: NOW + MINUTE_MS, lockouts: 1 }));
    const snapshot = { ...locked };
    expectDomainError(() => reserveAccountAttempt(locked, 3, NOW + 1), 'ACCOUNT_LOCKED');
    expect(locked).toEqual(snapshot);
  });

  it('reserving works again once the lock expires (at lockedUntil)', () => {
    const locked = lockAccount(freshAccountCounter, 10, NOW);
    const until = locked.lockedUntil as number;
    expectDomainError(() => reserveAccountAttempt(locked, 10, until - 1), 'ACCOUNT_LOCKED');
    expect(reserve(locked, 10, until)).toEqual({ failures: 0, lockedUntil: until, lockouts: 1, inFlight: 1, inFlightUntil: until + LEASE });
  });

  it('threshold 1: one check at a time, and its failure locks', () => {
    const one = reserve(freshAccountCounter, 1, NOW);
    expect(reserveAccountAttempt(one, 1, NOW)).toEqual({ kind: 'busy' });
    expect(settleAccountAttempt(one, 'failure', 1, NOW)).toEqual({ failures: 0, lockedUntil: NOW + MINUTE_MS, lockouts: 1, inFlight: 0, inFlightUntil: null });
  });
});

describe('settleAccountAttempt', () => {
  it('a failure counts up and gives back the turn', () => {
    const one = reserve(freshAccountCounter, 10, NOW);
    expect(settleAccountAttempt(one, 'failure', 10, NOW + 1)).toEqual({ failures: 1, lockedUntil: null, lockouts: 0, inFlight: 0, inFlightUntil: null });
    // Other checks keep their lease.
    const three = counter({ failures: 2, inFlight: 3, inFlightUntil: NOW + LEASE });
    expect(settleAccountAttempt(three, 'failure', 10, NOW + 1)).toEqual({ ...three, failures: 3, inFlight: 2 });
  });

  it('the threshold-th settled failure starts a lock of lockDuration(lockouts)', () => {
    const nine = counter({ failures: 9, lockouts: 2, lockedUntil: NOW - DAY_MS, inFlight: 1, inFlightUntil: NOW + LEASE });
    expect(settleAccountAttempt(nine, 'failure', 10, NOW)).toEqual({
      failures: 0,
      lockedUntil: NOW + lockDuration(2),
      lockouts: 3,
      inFlight: 0,
      inFlightUntil: null,
    });
    const eight = counter({ failures: 8, inFlight: 1, inFlightUntil: NOW + LEASE });
    expect(settleAccountAttempt(eight, 'failure', 10, NOW)).toEqual({ ...eight, failures: 9, inFlight: 0, inFlightUntil: null });
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

  it('a success resets the failures, any lock and the lockouts, and gives back its turn', () => {
    const c = counter({ failures: 5, lockedUntil: NOW - 1, lockouts: 3, inFlight: 2, inFlightUntil: NOW + LEASE });
    const once = settleAccountAttempt(c, 'success', 10, NOW);
    expect(once).toEqual({ failures: 0, lockedUntil: null, lockouts: 0, inFlight: 1, inFlightUntil: NOW + LEASE });
    expect(settleAccountAttempt(once, 'success', 10, NOW)).toEqual(freshAccountCounter);
    // A check reserved before a lock started forgives that lock too.
    const locked = counter({ lockedUntil: NOW + MINUTE_MS, lockouts: 1, inFlight: 1, inFlightUntil: NOW + LEASE });
    expect(settleAccountAttempt(locked, 'success', 10, NOW + 1)).toEqual(freshAccountCounter);
  });

  it('never counts below 0 checks in flight (nothing reserved, or the lease lapsed)', () => {
    expect(settleAccountAttempt(freshAccountCounter, 'success', 10, NOW)).toEqual(freshAccountCounter);
    expect(settleAccountAttempt(freshAccountCounter, 'failure', 10, NOW)).toEqual({ ...freshAccountCounter, failures: 1 });
    const lapsed = counter({ failures: 1, inFlight: 3, inFlightUntil: NOW });
    expect(settleAccountAttempt(lapsed, 'failure', 10, NOW)).toEqual({ ...freshAccountCounter, failures: 2 });
    expect(settleAccountAttempt(lapsed, 'success', 10, NOW + 1)).toEqual(freshAccountCounter);
  });

  it('after a success the next lock is the first-length one again', () => {
    let c = lockAccount(freshAccountCounter, 10, NOW);
    c = lockAccount(c, 10, c.lockedUntil as number);
    expect(c.lockouts).toBe(2);
    const t = NOW + DAY_MS;
    c = settleAccountAttempt(reserve(c, 10, t), 'success', 10, t);
    expect(c).toEqual(freshAccountCounter);
    expect(lockAccount(c, 10, t).lockedUntil).toBe(t + MINUTE_MS);
  });

  it('a success between failures means they are no longer consecutive', () => {
    let c = freshAccountCounter;
    for (let i = 0; i < 9; i++) c = settleAccountAttempt(reserve(c, 10, NOW), 'failure', 10, NOW);
    expect(c.failures).toBe(9);
    c = settleAccountAttempt(reserve(c, 10, NOW), 'success', 10, NOW);
    for (let i = 0; i < 9; i++) c = settleAccountAttempt(reserve(c, 10, NOW), 'failure', 10, NOW);
    expect(c).toEqual({ ...freshAccountCounter, failures: 9 });
  });
});

describe('parallel checks on one account', () => {
  it('50 parallel guesses at threshold 10: exactly 10 are reserved, and their failures lock the account', () => {
    const { inFlight, settled, reserved, busy } = foldParallelGuesses(freshAccountCounter, 50, 10, NOW);
    expect({ reserved, busy }).toEqual({ reserved: 10, busy: 40 });
    expect(inFlight).toEqual({ failures: 0, lockedUntil: null, lockouts: 0, inFlight: 10, inFlightUntil: NOW + LEASE });
    expect(settled).toEqual({ failures: 0, lockedUntil: NOW + MINUTE_MS, lockouts: 1, inFlight: 0, inFlightUntil: null });
    expectDomainError(() => reserveAccountAttempt(settled, 10, NOW), 'ACCOUNT_LOCKED');
  });

  it('at one instant exactly min(n, threshold) are reserved; settling them all as failures locks at the threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.nat(200), (threshold, n) => {
        const { inFlight, settled, reserved, busy } = foldParallelGuesses(freshAccountCounter, n, threshold, NOW);
        expect(reserved).toBe(Math.min(n, threshold));
        expect(busy).toBe(n - reserved);
        expect(inFlight.inFlight).toBe(reserved);
        expect(settled.inFlight).toBe(0);
        if (n >= threshold) {
          expect(settled).toMatchObject({ failures: 0, lockedUntil: NOW + MINUTE_MS, lockouts: 1 });
          expectDomainError(() => reserveAccountAttempt(settled, threshold, NOW), 'ACCOUNT_LOCKED');
        } else {
          expect(settled).toEqual({ ...freshAccountCounter, failures: n });
        }
      }),
    );
  });

  // Any interleaving of reservations and failed settlements, within one lease: the model tracks the
  // checks really in flight and settles only those.
  const step = fc.record({ op: fc.constantFrom('reserve', 'settle'), dt: fc.nat(Math.floor(LEASE / 100) - 1) });

  it('whatever the interleaving, no more than the threshold checks are reserved before the lock', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(step, { maxLength: 100 }), (threshold, steps) => {
        let c = freshAccountCounter;
        let t = NOW;
        let reserved = 0;
        let outstanding = 0;
        for (const { op, dt } of steps) {
          t += dt;
          if (op === 'reserve') {
            const r = reserveAccountAttempt(c, threshold, t);
            expect(r.kind === 'busy').toBe(c.failures + outstanding >= threshold);
            if (r.kind === 'reserved') {
              c = r.next;
              reserved++;
              outstanding++;
            }
          } else if (outstanding > 0) {
            c = settleAccountAttempt(c, 'failure', threshold, t);
            outstanding--;
          }
          expect(reserved).toBeLessThanOrEqual(threshold);
          if (c.lockedUntil !== null) {
            // The lock starts exactly when the threshold-th reserved check fails.
            expect({ reserved, outstanding }).toEqual({ reserved: threshold, outstanding: 0 });
            expectDomainError(() => reserveAccountAttempt(c, threshold, t), 'ACCOUNT_LOCKED');
            return;
          }
          expect(c.inFlight).toBe(outstanding);
          expect(c.failures + c.inFlight).toBeLessThanOrEqual(threshold);
        }
      }),
    );
  });

  it('correct logins, however interleaved, only queue: never locked, every turn given back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(step, { maxLength: 100 }), (threshold, steps) => {
        let c = freshAccountCounter;
        let t = NOW;
        let outstanding = 0;
        for (const { op, dt } of steps) {
          t += dt;
          if (op === 'reserve') {
            const r = reserveAccountAttempt(c, threshold, t);
            expect(r.kind === 'busy').toBe(outstanding >= threshold);
            if (r.kind === 'reserved') {
              c = r.next;
              outstanding++;
            }
          } else if (outstanding > 0) {
            c = settleAccountAttempt(c, 'success', threshold, t);
            outstanding--;
          }
          expect(c).toMatchObject({ failures: 0, lockedUntil: null, lockouts: 0, inFlight: outstanding });
        }
        while (outstanding-- > 0) c = settleAccountAttempt(c, 'success', threshold, t);
        expect(c).toEqual(freshAccountCounter);
      }),
    );
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

describe("an account's failures from every address", () => {
  it("count in an hour's window; at the limit the account is locked everywhere until the window ends", () => {
    let c = null as ReturnType<typeof reserveAccountWindow> | null;
    for (let i = 0; i < 3; i++) c = reserveAccountWindow(c, 3, NOW + i);
    expect(c).toEqual({ windowStart: NOW, failures: 3 });
    const error = expectDomainError(() => reserveAccountWindow(c, 3, NOW + MINUTE_MS), 'ACCOUNT_LOCKED');
    expect(error.details.retryAfterSeconds).toBe((ACCOUNT_WINDOW_MS - MINUTE_MS) / 1000);
    expect(reserveAccountWindow(c, 3, NOW + ACCOUNT_WINDOW_MS)).toEqual({ windowStart: NOW + ACCOUNT_WINDOW_MS, failures: 1 });
  });

  it('a full hourly window does not hold a caller familiar to the account, whose attempts still count', () => {
    let c = null as ReturnType<typeof reserveAccountWindow> | null;
    for (let i = 0; i < 3; i++) c = reserveAccountWindow(c, 3, NOW + i);
    expectDomainError(() => reserveAccountWindow(c, 3, NOW + MINUTE_MS), 'ACCOUNT_LOCKED');
    expect(reserveAccountWindow(c, 3, NOW + MINUTE_MS, true)).toEqual({ windowStart: NOW, failures: 4 });
  });

  it('a success gives back only its own attempt', () => {
    expect(accountWindowAfterSuccess({ windowStart: NOW, failures: 5 }, NOW + 1)).toEqual({ windowStart: NOW, failures: 4 });
    expect(accountWindowAfterSuccess(null, NOW)).toEqual({ windowStart: NOW, failures: 0 });
  });
});

describe('an address past its limit', () => {
  it('still serves an account that signed in from it before, and keeps counting', () => {
    const full = { windowStart: NOW, failures: 5 };
    expectDomainError(() => reserveIpAttempt(full, 5, NOW + 1), 'RATE_LIMITED');
    expect(reserveIpAttempt(full, 5, NOW + 1, true)).toEqual({ windowStart: NOW, failures: 6 });
  });
});

describe('throttlePurgeCutoffs', () => {
  it('lets a purge take exactly the windows the domain already reads as fresh, and counters idle a day', () => {
    const cut = throttlePurgeCutoffs(NOW);
    // A window that started exactly one window ago has ended (currentIpCounter starts afresh)...
    expect(NOW - IP_WINDOW_MS < cut.ipWindowStartedBefore).toBe(true);
    expect(currentIpCounter({ windowStart: NOW - IP_WINDOW_MS, failures: 7 }, NOW)).toEqual({ windowStart: NOW, failures: 0 });
    // ...one that started a moment later has not.
    expect(NOW - IP_WINDOW_MS + 1 < cut.ipWindowStartedBefore).toBe(false);
    expect(NOW - ACCOUNT_WINDOW_MS < cut.accountWindowStartedBefore).toBe(true);
    expect(NOW - ACCOUNT_WINDOW_MS + 1 < cut.accountWindowStartedBefore).toBe(false);
    expect(cut.idleSince).toBe(NOW - IDLE_COUNTER_RETENTION_MS);
  });
});
