import { describe, expect, it } from 'vitest';
import { graceMinutesOf, membershipState, noPlans, type UserPlans } from '../../src/domain/membership-state.js';
import { MINUTE_MS } from '../../src/domain/time.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const pro = { id: 'p1', name: 'Pro', entitlements: ['sync', 'export'], graceMinutes: 30, maxDevices: null, maxSessions: null };
const withPro: UserPlans = {
  base: pro,
  addOns: [
    { endsAt: NOW + MINUTE_MS, entitlements: ['dlc'] },
    { endsAt: NOW, entitlements: ['gone'] },
  ],
};

describe('membershipState', () => {
  it('shows the plan, the entitlements of every source, and no grace while active', () => {
    expect(membershipState({ activeUntil: NOW + MINUTE_MS, isLifetime: false }, ['beta'], withPro, NOW)).toEqual({
      isActive: true,
      isLifetime: false,
      activeUntil: NOW + MINUTE_MS,
      plan: { id: 'p1', name: 'Pro' },
      entitlements: ['beta', 'dlc', 'export', 'sync'],
      inGrace: false,
      graceEndsAt: null,
    });
  });

  it("is active in the base plan's grace, with its end, and keeps the plan's entitlements", () => {
    const state = membershipState({ activeUntil: NOW - 10 * MINUTE_MS, isLifetime: false }, [], withPro, NOW);
    expect(state).toMatchObject({ isActive: true, inGrace: true, graceEndsAt: NOW + 20 * MINUTE_MS, entitlements: ['dlc', 'export', 'sync'] });
  });

  it('after the grace: inactive, the plan still named, only add-ons and direct grants', () => {
    const state = membershipState({ activeUntil: NOW - 30 * MINUTE_MS, isLifetime: false }, ['beta'], withPro, NOW);
    expect(state).toMatchObject({ isActive: false, inGrace: false, graceEndsAt: null, plan: { id: 'p1', name: 'Pro' }, entitlements: ['beta', 'dlc'] });
  });

  it('hides active_until under lifetime, and has no grace without a plan', () => {
    expect(membershipState({ activeUntil: NOW - MINUTE_MS, isLifetime: true }, [], noPlans, NOW)).toMatchObject({ isActive: true, isLifetime: true, activeUntil: null, plan: null });
    expect(membershipState({ activeUntil: NOW - MINUTE_MS, isLifetime: false }, [], noPlans, NOW)).toMatchObject({ isActive: false, inGrace: false });
    expect(graceMinutesOf(noPlans)).toBe(0);
    expect(graceMinutesOf(withPro)).toBe(30);
  });
});
