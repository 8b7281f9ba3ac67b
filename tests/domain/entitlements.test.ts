import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { userEntitlements, type EntitlementSources } from '../../src/domain/entitlements.js';
import { emptyMembership, type Membership } from '../../src/domain/membership.js';
import { MINUTE_MS } from '../../src/domain/time.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const HOUR = 60 * MINUTE_MS;
const timed = (activeUntil: number): Membership => ({ activeUntil, isLifetime: false });
/** Fisher-Yates driven by a small linear congruential generator: the same seed, the same order. */
function permute<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let state = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
const none: EntitlementSources = { membership: emptyMembership, basePlan: null, addOns: [], direct: [] };

describe('userEntitlements', () => {
  it('is empty with nothing held', () => {
    expect(userEntitlements(none, NOW)).toEqual([]);
  });

  it('joins the base plan, active add-ons and direct grants, sorted without repeats', () => {
    const sources: EntitlementSources = {
      membership: timed(NOW + HOUR),
      basePlan: { entitlements: ['beta', 'export'], graceMinutes: 0 },
      addOns: [
        { endsAt: NOW + HOUR, entitlements: ['dlc_winter', 'export'] },
        { endsAt: null, entitlements: ['soundtrack'] },
      ],
      direct: ['beta', 'admin:tools'],
    };
    expect(userEntitlements(sources, NOW)).toEqual(['admin:tools', 'beta', 'dlc_winter', 'export', 'soundtrack']);
  });

  it("keeps the base plan's through grace and drops them at its end; a lifetime membership keeps them", () => {
    const sources = { ...none, membership: timed(NOW), basePlan: { entitlements: ['export'], graceMinutes: 60 } };
    expect(userEntitlements(sources, NOW - 1)).toEqual(['export']);
    expect(userEntitlements(sources, NOW)).toEqual(['export']);
    expect(userEntitlements(sources, NOW + HOUR - 1)).toEqual(['export']);
    expect(userEntitlements(sources, NOW + HOUR)).toEqual([]);
    expect(userEntitlements({ ...sources, basePlan: { entitlements: ['export'], graceMinutes: 0 } }, NOW)).toEqual([]);
    expect(userEntitlements({ ...sources, membership: { activeUntil: NOW - HOUR, isLifetime: true } }, NOW + 100 * HOUR)).toEqual(['export']);
  });

  it("drops an add-on's at its end; one of lifetime never ends; direct grants hold without a membership", () => {
    const addOn = { ...none, addOns: [{ endsAt: NOW, entitlements: ['dlc'] }], direct: ['vip'] };
    expect(userEntitlements(addOn, NOW - 1)).toEqual(['dlc', 'vip']);
    expect(userEntitlements(addOn, NOW)).toEqual(['vip']);
    expect(userEntitlements({ ...addOn, addOns: [{ endsAt: null, entitlements: ['dlc'] }] }, NOW + 1000 * HOUR)).toEqual(['dlc', 'vip']);
  });
});

describe('userEntitlements, for any holdings', () => {
  const code = fc.constantFrom('a', 'b', 'beta', 'c', 'd', 'dlc:1', 'e', 'export', 'f', 'g', 'x_y', 'z-9.0');
  const codes = fc.array(code, { maxLength: 4 });
  // Whole minutes give the edges (an end at now, grace ending at now), give or take a millisecond.
  const instant = fc.tuple(fc.integer({ min: -30, max: 30 }), fc.constantFrom(-1, 0, 0, 0, 1)).map(([m, ms]) => NOW + m * MINUTE_MS + ms);
  const membership = fc.record({ activeUntil: fc.option(instant, { freq: 8 }), isLifetime: fc.constantFrom(false, false, false, true) }) as fc.Arbitrary<Membership>;
  const sources = fc.record({
    membership,
    // A plan's codes as stored (acceptEntitlements): sorted, without repeats.
    basePlan: fc.option(fc.record({ entitlements: codes.map((cs) => [...new Set(cs)].sort()), graceMinutes: fc.integer({ min: 0, max: 20 }) })),
    addOns: fc.array(fc.record({ endsAt: fc.option(instant), entitlements: codes }), { maxLength: 4 }),
    direct: codes,
  }) as fc.Arbitrary<EntitlementSources>;
  const settings = { seed: 42, numRuns: 1000 };

  // Written apart from the function: the base plan counts while now < active_until + grace.
  const baseActive = (s: EntitlementSources, now: number) =>
    s.basePlan !== null && (s.membership.isLifetime || (s.membership.activeUntil !== null && now < s.membership.activeUntil + s.basePlan.graceMinutes * MINUTE_MS));
  const activeCodes = (s: EntitlementSources, now: number) => [
    ...s.direct,
    ...(baseActive(s, now) ? (s.basePlan?.entitlements ?? []) : []),
    ...s.addOns.filter((g) => g.endsAt === null || g.endsAt > now).flatMap((g) => g.entitlements),
  ];

  it('never loses an active entitlement', () => {
    fc.assert(
      fc.property(sources, instant, (s, now) => {
        const held = new Set(userEntitlements(s, now));
        expect(activeCodes(s, now).filter((c) => !held.has(c))).toEqual([]);
      }),
      settings,
    );
  });

  it('never keeps an expired one: every code comes from an active source', () => {
    fc.assert(
      fc.property(sources, instant, (s, now) => {
        const active = new Set(activeCodes(s, now));
        expect(userEntitlements(s, now).filter((c) => !active.has(c))).toEqual([]);
      }),
      settings,
    );
  });

  it('a base plan after its grace and add-ons after their end give nothing', () => {
    fc.assert(
      fc.property(sources, instant, (s, now) => {
        // Each add-on ends at now or before it; the membership's grace ends at now or before it.
        const addOns = s.addOns.map((g, i) => ({ ...g, endsAt: now - i * MINUTE_MS }));
        const membership = { activeUntil: now - (s.basePlan?.graceMinutes ?? 0) * MINUTE_MS - (s.addOns.length % 2), isLifetime: false };
        expect(userEntitlements({ ...s, direct: [], addOns, membership }, now)).toEqual([]);
      }),
      settings,
    );
  });

  it('is sorted, without repeats, and independent of the order of its inputs', () => {
    fc.assert(
      fc.property(sources, instant, fc.integer(), (s, now, seed) => {
        const result = userEntitlements(s, now);
        expect(result).toEqual([...new Set(result)].sort());
        const shuffle = <T>(xs: readonly T[]): T[] => permute(xs, seed);
        const reordered = {
          ...s,
          direct: shuffle(s.direct),
          addOns: shuffle(s.addOns).map((g) => ({ ...g, entitlements: shuffle(g.entitlements) })),
          // A base plan's codes come as stored (sorted); the others in any order.
        };
        expect(userEntitlements(reordered, now)).toEqual(result);
      }),
      settings,
    );
  });
});
