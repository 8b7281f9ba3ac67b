import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertNewHolderMachine, seatDecision, type SeatTerms, severalHolders } from '../../src/domain/seats.js';

const five: SeatTerms = { seats: 5, floating: false };
const users = (n: number) => new Set(Array.from({ length: n }, (_, i) => `u${i}`));

describe('seatDecision', () => {
  it('lets N distinct users redeem a code of N seats and refuses the one after', () => {
    for (let n = 0; n < 5; n++) expect(seatDecision(five, users(n), 'new')).toBe('redeem');
    expect(seatDecision(five, users(5), 'new')).toBe('LICENSE_USED');
  });

  it('answers LICENSE_ALREADY_REDEEMED to a user redeeming the same seat code again, full or not', () => {
    expect(seatDecision(five, users(2), 'u1')).toBe('LICENSE_ALREADY_REDEEMED');
    expect(seatDecision(five, users(5), 'u4')).toBe('LICENSE_ALREADY_REDEEMED');
  });

  it('a single-seat code answers LICENSE_USED to everyone once redeemed, its redeemer too', () => {
    const one = { seats: 1, floating: false };
    expect(seatDecision(one, new Set(), 'u0')).toBe('redeem');
    expect(seatDecision(one, users(1), 'u0')).toBe('LICENSE_USED');
    expect(seatDecision(one, users(1), 'other')).toBe('LICENSE_USED');
  });

  it('a released seat is free again', () => {
    const taken = users(5);
    taken.delete('u2');
    expect(seatDecision(five, taken, 'new')).toBe('redeem');
    expect(seatDecision(five, taken, 'u2')).toBe('redeem');
  });

  it('a floating code takes any number of users, each once', () => {
    const floating = { seats: 2, floating: true };
    expect(seatDecision(floating, users(50), 'new')).toBe('redeem');
    expect(seatDecision(floating, users(50), 'u7')).toBe('LICENSE_ALREADY_REDEEMED');
    expect(seatDecision({ seats: 1, floating: true }, users(1), 'u0')).toBe('LICENSE_ALREADY_REDEEMED');
  });

  it('redeeming one after another never passes N distinct users', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 40 }), (seats, attempts) => {
        const redeemedBy = new Set<string>();
        for (const u of attempts) if (seatDecision({ seats, floating: false }, redeemedBy, `u${u}`) === 'redeem') redeemedBy.add(`u${u}`);
        expect(redeemedBy.size).toBe(Math.min(seats, new Set(attempts).size));
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

describe('codes of several holders', () => {
  it('severalHolders: more than one seat, or floating', () => {
    expect(severalHolders({ seats: 1, floating: false })).toBe(false);
    expect(severalHolders({ seats: 2, floating: false })).toBe(true);
    expect(severalHolders({ seats: 1, floating: true })).toBe(true);
  });

  it("assertNewHolderMachine: a machine is required, and must not be a holder's already", () => {
    expect(() => assertNewHolderMachine(null, false)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', details: { errors: [expect.objectContaining({ field: 'hardware_id' })] } }));
    expect(() => assertNewHolderMachine('hw-a', true)).toThrow(expect.objectContaining({ code: 'LICENSE_ALREADY_REDEEMED' }));
    expect(assertNewHolderMachine('hw-a', false)).toBeUndefined();
  });
});
