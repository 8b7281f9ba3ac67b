import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_WINDOW_MS, freshAccountCounter, IP_WINDOW_MS, type AccountCounter, type WindowCounter } from '../../src/domain/auth-throttle.js';
import { passwordThenCode, reserveTurn, settleTurn, type TurnChanges, type TurnCounters } from '../../src/domain/auth-turns.js';
import { DomainError } from '../../src/domain/errors.js';
import { expectDomainError } from './expect-domain-error.js';

const NOW = 10_000_000;
const limits = { lockoutThreshold: 3, ipFailureLimit: 5, accountFailureLimit: 4 };
const none: TurnCounters = { ip: null, window: null, pair: null };
const apply = (c: TurnCounters, changes: TurnChanges): TurnCounters => ({ ip: changes.ip ?? c.ip, window: changes.window ?? c.window, pair: changes.pair ?? c.pair });

describe('reserveTurn', () => {
  it('counts an attempt on the address, the window and the pair; only the address without an account', () => {
    expect(reserveTurn(none, true, limits, NOW, false)).toEqual({
      kind: 'reserved',
      changes: { ip: { windowStart: NOW, failures: 1 }, window: { windowStart: NOW, failures: 1 }, pair: { ...freshAccountCounter, inFlight: 1, inFlightUntil: expect.any(Number) as number } },
    });
    expect(reserveTurn(none, false, limits, NOW, false)).toEqual({ kind: 'reserved', changes: { ip: { windowStart: NOW, failures: 1 } } });
  });

  it('refuses the address first, then the account; busy changes nothing', () => {
    const full = { windowStart: NOW, failures: 5 };
    expectDomainError(() => reserveTurn({ ...none, ip: full, pair: { ...freshAccountCounter, lockedUntil: NOW + 1 } }, true, limits, NOW, false), 'RATE_LIMITED');
    expectDomainError(() => reserveTurn({ ...none, pair: { ...freshAccountCounter, lockedUntil: NOW + 1 } }, true, limits, NOW, false), 'ACCOUNT_LOCKED');
    // A familiar caller passes the address's limit and the account's window, not the pair's lock.
    expect(reserveTurn({ ...none, ip: full, window: { windowStart: NOW, failures: 4 } }, true, limits, NOW, true).kind).toBe('reserved');
    expect(reserveTurn({ ...none, pair: { ...freshAccountCounter, failures: 2, inFlight: 1, inFlightUntil: NOW + 1 } }, true, limits, NOW, false)).toEqual({ kind: 'busy' });
  });
});

describe('settleTurn', () => {
  const reserved = apply(none, (reserveTurn(none, true, limits, NOW, false) as { changes: TurnChanges }).changes);

  it('a success gives the attempt back on the windows and resets the pair', () => {
    expect(settleTurn(reserved, true, 'success', limits, NOW)).toEqual({
      changes: { ip: { windowStart: NOW, failures: 0 }, window: { windowStart: NOW, failures: 0 }, pair: freshAccountCounter },
      lockedUntil: null,
    });
  });

  it('a failure stays counted on the windows; the threshold-th locks the pair and says until when', () => {
    expect(settleTurn(reserved, true, 'failure', limits, NOW)).toEqual({ changes: { pair: { ...freshAccountCounter, failures: 1 } }, lockedUntil: null });
    const third = { ...reserved, pair: { ...reserved.pair!, failures: 2 } };
    const locked = settleTurn(third, true, 'failure', limits, NOW);
    expect(locked.lockedUntil).toBeGreaterThan(NOW);
    expect(locked.changes.pair?.lockedUntil).toBe(locked.lockedUntil);
    expect(settleTurn(reserved, false, 'failure', limits, NOW)).toEqual({ changes: {}, lockedUntil: null });
  });
});

describe('passwordThenCode', () => {
  const window = (failures: number, age: number): WindowCounter => ({ windowStart: NOW - age, failures });
  const counters = (hasPair: boolean) =>
    fc.record({
      ip: fc.option(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: IP_WINDOW_MS + 1 })).map(([f, a]) => window(f, a))),
      window: fc.option(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: ACCOUNT_WINDOW_MS + 1 })).map(([f, a]) => window(f, a))),
      pair: hasPair
        ? fc.option(
            fc.record({
              failures: fc.integer({ min: 0, max: 2 }),
              lockedUntil: fc.option(fc.integer({ min: NOW - 5, max: NOW + 5 })),
              lockouts: fc.integer({ min: 0, max: 3 }),
              inFlight: fc.integer({ min: 0, max: 3 }),
              inFlightUntil: fc.option(fc.integer({ min: NOW - 5, max: NOW + 5 })),
            }) as fc.Arbitrary<AccountCounter>,
          )
        : fc.constant(null),
    }) as fc.Arbitrary<TurnCounters>;

  it('decides as the password settled, then the code reserved and settled, one after the other', () => {
    fc.assert(
      fc.property(counters(true), counters(true), fc.boolean(), (password, code, found) => {
        // The password's turn is reserved already: a check in flight on its pair.
        const held = { ...password, pair: { ...(password.pair ?? freshAccountCounter), inFlight: 1, inFlightUntil: NOW + 1 } };
        const turns = passwordThenCode(held, code, found, limits, NOW);
        // The same, one step at a time, on the one address counter.
        const settled = settleTurn(held, true, 'success', limits, NOW).changes;
        const atCode = { ...code, ip: settled.ip ?? held.ip };
        let reserved;
        try {
          reserved = reserveTurn(atCode, true, limits, NOW, false);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect(turns).toEqual({ kind: 'refused', error, password: settled });
          return;
        }
        if (reserved.kind === 'busy') {
          expect(turns).toEqual({ kind: 'busy', password: settled });
          return;
        }
        const afterReserve = apply(atCode, reserved.changes);
        const checked = settleTurn(afterReserve, true, found ? 'success' : 'failure', limits, NOW);
        const after = apply(afterReserve, checked.changes);
        expect(turns).toEqual({
          kind: 'settled',
          password: { window: settled.window, pair: settled.pair },
          code: { ip: after.ip, window: after.window, pair: after.pair },
          lockedUntil: checked.lockedUntil,
        });
      }),
      { seed: 40, numRuns: 2000 },
    );
  });

  it("a code refused on the address comes back with only the password's turn settled", () => {
    const held = { ...none, ip: window(5, 0), pair: { ...freshAccountCounter, inFlight: 1, inFlightUntil: NOW + 1 } };
    // The password's success gives its attempt back (4), which the code's reservation takes again (5): under the limit.
    expect(passwordThenCode(held, none, true, limits, NOW).kind).toBe('settled');
    const over = { ...held, ip: window(6, 0) };
    const turns = passwordThenCode(over, none, true, limits, NOW);
    expect(turns.kind).toBe('refused');
    expect(turns.kind === 'refused' && (turns.error as DomainError).code).toBe('RATE_LIMITED');
    expect(turns.password.ip).toEqual(window(5, 0));
  });
});
