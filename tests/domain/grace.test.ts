import { describe, expect, it } from 'vitest';
import { accessEndsAt, graceState, hasAccess } from '../../src/domain/grace.js';
import { emptyMembership, LATEST_ACTIVE_UNTIL, type Membership } from '../../src/domain/membership.js';
import { MINUTE_MS } from '../../src/domain/time.js';

const UNTIL = Date.UTC(2026, 5, 8, 12, 0, 0);
const GRACE = 3 * 24 * 60;
const GRACE_END = UNTIL + GRACE * MINUTE_MS;
const timed: Membership = { activeUntil: UNTIL, isLifetime: false };

describe('graceState', () => {
  it('is active and not in grace before active_until', () => {
    expect(graceState(timed, GRACE, UNTIL - 1)).toEqual({ isActive: true, inGrace: false, graceEndsAt: null });
  });

  it('is in grace from active_until, included, to one ms before its end', () => {
    for (const now of [UNTIL, UNTIL + 1, GRACE_END - 1]) expect(graceState(timed, GRACE, now)).toEqual({ isActive: true, inGrace: true, graceEndsAt: GRACE_END });
  });

  it('has ended at active_until + grace and after', () => {
    for (const now of [GRACE_END, GRACE_END + 1]) expect(graceState(timed, GRACE, now)).toEqual({ isActive: false, inGrace: false, graceEndsAt: null });
  });

  it('without grace ends at active_until as before', () => {
    expect(graceState(timed, 0, UNTIL - 1)).toEqual({ isActive: true, inGrace: false, graceEndsAt: null });
    expect(graceState(timed, 0, UNTIL)).toEqual({ isActive: false, inGrace: false, graceEndsAt: null });
  });

  it('a lifetime membership is active and never in grace; a never-granted one has nothing', () => {
    for (const activeUntil of [null, UNTIL - 10 * MINUTE_MS]) expect(graceState({ activeUntil, isLifetime: true }, GRACE, UNTIL)).toEqual({ isActive: true, inGrace: false, graceEndsAt: null });
    expect(graceState(emptyMembership, GRACE, UNTIL)).toEqual({ isActive: false, inGrace: false, graceEndsAt: null });
  });

  it('hasAccess says isActive', () => {
    expect([UNTIL - 1, UNTIL, GRACE_END - 1, GRACE_END].map((now) => hasAccess(timed, GRACE, now))).toEqual([true, true, true, false]);
  });
});

describe('accessEndsAt', () => {
  it('is active_until plus grace, null for lifetime or never granted', () => {
    expect(accessEndsAt(timed, GRACE)).toBe(GRACE_END);
    expect(accessEndsAt(timed, 0)).toBe(UNTIL);
    expect(accessEndsAt({ activeUntil: UNTIL, isLifetime: true }, GRACE)).toBeNull();
    expect(accessEndsAt(emptyMembership, GRACE)).toBeNull();
  });

  it('stays within the latest instant kept', () => {
    expect(accessEndsAt({ activeUntil: LATEST_ACTIVE_UNTIL - MINUTE_MS, isLifetime: false }, GRACE)).toBe(LATEST_ACTIVE_UNTIL);
  });
});
