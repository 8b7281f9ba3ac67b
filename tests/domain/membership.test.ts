import { describe, expect, it } from 'vitest';
import { applyBulkChange, applyLicense, emptyMembership, isMembershipActive, membershipView, validateBulkChange, type BulkChange, type Membership } from '../../src/domain/membership.js';
import { MINUTE_MS } from '../../src/domain/time.js';
import { expectValidationError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const HOUR = 60 * MINUTE_MS;

const timed = (activeUntil: number | null): Membership => ({ activeUntil, isLifetime: false });
const lifetime = (activeUntil: number | null): Membership => ({ activeUntil, isLifetime: true });

describe('isMembershipActive', () => {
  it('is inactive when never granted', () => {
    expect(isMembershipActive(emptyMembership, NOW)).toBe(false);
  });

  it('is active strictly before active_until and inactive at and after it', () => {
    const m = timed(NOW);
    expect(isMembershipActive(m, NOW - 1)).toBe(true);
    expect(isMembershipActive(m, NOW)).toBe(false);
    expect(isMembershipActive(m, NOW + 1)).toBe(false);
  });

  it('is active whenever lifetime, whatever the underlying time', () => {
    expect(isMembershipActive(lifetime(null), NOW)).toBe(true);
    expect(isMembershipActive(lifetime(NOW - HOUR), NOW)).toBe(true);
    expect(isMembershipActive(lifetime(NOW + HOUR), NOW + 10 * HOUR)).toBe(true);
  });
});

describe('membershipView', () => {
  it('never granted: inactive, not lifetime, active_until null', () => {
    expect(membershipView(emptyMembership, NOW)).toEqual({ is_active: false, is_lifetime: false, active_until: null });
  });

  it('timed and running: active with active_until', () => {
    expect(membershipView(timed(NOW + HOUR), NOW)).toEqual({ is_active: true, is_lifetime: false, active_until: NOW + HOUR });
  });

  it('timed and expired: inactive, still shows when it ended', () => {
    expect(membershipView(timed(NOW - HOUR), NOW)).toEqual({ is_active: false, is_lifetime: false, active_until: NOW - HOUR });
  });

  it('timed and ending exactly now: inactive', () => {
    expect(membershipView(timed(NOW), NOW).is_active).toBe(false);
  });

  it('lifetime: active_until null even with underlying time', () => {
    expect(membershipView(lifetime(NOW + HOUR), NOW)).toEqual({ is_active: true, is_lifetime: true, active_until: null });
    expect(membershipView(lifetime(null), NOW)).toEqual({ is_active: true, is_lifetime: true, active_until: null });
  });
});

describe('applyLicense', () => {
  it('timed license on an empty membership starts from now', () => {
    const { membership, adjustment } = applyLicense(emptyMembership, { licenseId: 'lic-1', minutes: 30 }, NOW, 'adj-1');
    expect(membership).toEqual({ activeUntil: NOW + 30 * MINUTE_MS, isLifetime: false });
    expect(isMembershipActive(membership, NOW)).toBe(true);
    expect(adjustment).toEqual({
      id: 'adj-1',
      type: 'license',
      occurredAt: NOW,
      minutes: 30,
      grantsLifetime: false,
      revokesLifetime: false,
      licenseId: 'lic-1',
      reason: null,
    });
  });

  it('timed license on an active membership stacks on active_until', () => {
    const { membership } = applyLicense(timed(NOW + HOUR), { licenseId: 'l', minutes: 60 }, NOW, 'a');
    expect(membership.activeUntil).toBe(NOW + 2 * HOUR);
    expect(membership.isLifetime).toBe(false);
  });

  it('timed license on an expired membership stacks on now, never on the expired past', () => {
    const { membership } = applyLicense(timed(NOW - 5 * HOUR), { licenseId: 'l', minutes: 60 }, NOW, 'a');
    expect(membership.activeUntil).toBe(NOW + HOUR);
  });

  it('timed license on a membership ending exactly now stacks on now', () => {
    const { membership } = applyLicense(timed(NOW), { licenseId: 'l', minutes: 1 }, NOW, 'a');
    expect(membership.activeUntil).toBe(NOW + MINUTE_MS);
  });

  it('two licenses in a row add up', () => {
    const first = applyLicense(emptyMembership, { licenseId: 'l1', minutes: 10 }, NOW, 'a1').membership;
    const second = applyLicense(first, { licenseId: 'l2', minutes: 20 }, NOW + MINUTE_MS, 'a2').membership;
    expect(second.activeUntil).toBe(NOW + 30 * MINUTE_MS);
  });

  it('lifetime license grants lifetime with minutes null', () => {
    const { membership, adjustment } = applyLicense(emptyMembership, { licenseId: 'life', minutes: null }, NOW, 'adj');
    expect(membership.isLifetime).toBe(true);
    expect(isMembershipActive(membership, NOW + 1000 * 24 * HOUR)).toBe(true);
    expect(adjustment.minutes).toBeNull();
    expect(adjustment.grantsLifetime).toBe(true);
    expect(adjustment.revokesLifetime).toBe(false);
    expect(adjustment.licenseId).toBe('life');
    expect(adjustment.type).toBe('license');
  });

  it('lifetime license keeps the underlying time', () => {
    const { membership } = applyLicense(timed(NOW + HOUR), { licenseId: 'life', minutes: null }, NOW, 'adj');
    expect(membership).toEqual({ activeUntil: NOW + HOUR, isLifetime: true });
  });

  it('timed license on a lifetime membership stays lifetime and banks the time underneath', () => {
    const { membership, adjustment } = applyLicense(lifetime(null), { licenseId: 'l', minutes: 60 }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + HOUR, isLifetime: true });
    expect(membershipView(membership, NOW).active_until).toBeNull();
    expect(adjustment.grantsLifetime).toBe(false);
    expect(adjustment.minutes).toBe(60);
  });

  it('does not mutate its input', () => {
    const m = timed(NOW + HOUR);
    applyLicense(m, { licenseId: 'l', minutes: 60 }, NOW, 'a');
    expect(m).toEqual(timed(NOW + HOUR));
  });
});

describe('validateBulkChange', () => {
  it('accepts each legal shape', () => {
    for (const c of [
      { minutes: 60 },
      { minutes: -60 },
      { grantLifetime: true },
      { revokeLifetime: true },
      { revokeLifetime: true, minutes: 60 },
      { revokeLifetime: true, minutes: -60 },
      { minutes: 1, grantLifetime: false, revokeLifetime: false, reason: 'promo' },
      { minutes: null, grantLifetime: true },
    ] satisfies BulkChange[]) {
      expect(() => validateBulkChange(c)).not.toThrow();
    }
  });

  it('rejects minutes combined with grant_lifetime', () => {
    expectValidationError(() => validateBulkChange({ minutes: 10, grantLifetime: true }), 'minutes');
  });

  it('rejects grant_lifetime combined with revoke_lifetime', () => {
    expectValidationError(() => validateBulkChange({ grantLifetime: true, revokeLifetime: true }), 'revoke_lifetime');
  });

  it('rejects a change with nothing to do', () => {
    expectValidationError(() => validateBulkChange({}), 'minutes');
    expectValidationError(() => validateBulkChange({ minutes: null, grantLifetime: false, revokeLifetime: false }), 'minutes');
    expectValidationError(() => validateBulkChange({ reason: 'just because' }), 'minutes');
  });

  it('rejects zero minutes', () => {
    expectValidationError(() => validateBulkChange({ minutes: 0 }), 'minutes');
    expectValidationError(() => validateBulkChange({ minutes: 0, revokeLifetime: true }), 'minutes');
  });

  it('rejects non-integer minutes', () => {
    for (const minutes of [1.5, -0.25, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expectValidationError(() => validateBulkChange({ minutes }), 'minutes');
    }
  });

  it('applyBulkChange validates before changing anything', () => {
    expectValidationError(() => applyBulkChange(timed(NOW + HOUR), { minutes: 0 }, NOW, 'a'), 'minutes');
    expectValidationError(() => applyBulkChange(timed(NOW + HOUR), {}, NOW, 'a'), 'minutes');
  });
});

describe('applyBulkChange', () => {
  it('adds minutes to an empty membership from now', () => {
    const { membership } = applyBulkChange(emptyMembership, { minutes: 90 }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + 90 * MINUTE_MS, isLifetime: false });
  });

  it('adds minutes to an active membership on top of active_until', () => {
    const { membership } = applyBulkChange(timed(NOW + HOUR), { minutes: 60 }, NOW, 'a');
    expect(membership.activeUntil).toBe(NOW + 2 * HOUR);
  });

  it('adds minutes to an expired membership from now', () => {
    const { membership } = applyBulkChange(timed(NOW - HOUR), { minutes: 60 }, NOW, 'a');
    expect(membership.activeUntil).toBe(NOW + HOUR);
  });

  it('removes minutes from remaining time', () => {
    const { membership } = applyBulkChange(timed(NOW + 2 * HOUR), { minutes: -60 }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + HOUR, isLifetime: false });
    expect(isMembershipActive(membership, NOW)).toBe(true);
  });

  it('removing from an expired membership leaves it unchanged', () => {
    const m = timed(NOW - HOUR);
    const { membership, adjustment } = applyBulkChange(m, { minutes: -30 }, NOW, 'a');
    expect(membership).toEqual(m);
    expect(adjustment.minutes).toBe(-30);
  });

  it('removing from a membership ending exactly now leaves it unchanged', () => {
    const m = timed(NOW);
    expect(applyBulkChange(m, { minutes: -30 }, NOW, 'a').membership).toEqual(m);
  });

  it('removing from a never-granted membership leaves it unchanged', () => {
    const { membership } = applyBulkChange(emptyMembership, { minutes: -30 }, NOW, 'a');
    expect(membership).toEqual(emptyMembership);
    expect(membershipView(membership, NOW)).toEqual({ is_active: false, is_lifetime: false, active_until: null });
  });

  it('removing more than remains expires the membership', () => {
    const { membership } = applyBulkChange(timed(NOW + 10 * MINUTE_MS), { minutes: -60 }, NOW, 'a');
    expect(membership.activeUntil).toBe(NOW - 50 * MINUTE_MS);
    expect(isMembershipActive(membership, NOW)).toBe(false);
  });

  it('removing exactly what remains expires the membership now', () => {
    const { membership } = applyBulkChange(timed(NOW + HOUR), { minutes: -60 }, NOW, 'a');
    expect(membership.activeUntil).toBe(NOW);
    expect(isMembershipActive(membership, NOW)).toBe(false);
  });

  it('grants lifetime, keeping the underlying time', () => {
    const { membership, adjustment } = applyBulkChange(timed(NOW + HOUR), { grantLifetime: true }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + HOUR, isLifetime: true });
    expect(isMembershipActive(membership, NOW + 100 * HOUR)).toBe(true);
    expect(adjustment.grantsLifetime).toBe(true);
    expect(adjustment.revokesLifetime).toBe(false);
    expect(adjustment.minutes).toBeNull();
  });

  it('grants lifetime to a never-granted membership', () => {
    const { membership } = applyBulkChange(emptyMembership, { grantLifetime: true }, NOW, 'a');
    expect(membershipView(membership, NOW)).toEqual({ is_active: true, is_lifetime: true, active_until: null });
  });

  it('revokes lifetime, returning to the underlying time still running', () => {
    const { membership, adjustment } = applyBulkChange(lifetime(NOW + HOUR), { revokeLifetime: true }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + HOUR, isLifetime: false });
    expect(membershipView(membership, NOW)).toEqual({ is_active: true, is_lifetime: false, active_until: NOW + HOUR });
    expect(adjustment.revokesLifetime).toBe(true);
    expect(adjustment.grantsLifetime).toBe(false);
    expect(adjustment.minutes).toBeNull();
  });

  it('revokes lifetime with expired underlying time: inactive', () => {
    const { membership } = applyBulkChange(lifetime(NOW - HOUR), { revokeLifetime: true }, NOW, 'a');
    expect(isMembershipActive(membership, NOW)).toBe(false);
  });

  it('revokes lifetime with no underlying time: back to never granted', () => {
    const { membership } = applyBulkChange(lifetime(null), { revokeLifetime: true }, NOW, 'a');
    expect(membership).toEqual(emptyMembership);
    expect(membershipView(membership, NOW)).toEqual({ is_active: false, is_lifetime: false, active_until: null });
  });

  it('revoke lifetime plus minutes leaves that timed access', () => {
    const { membership, adjustment } = applyBulkChange(lifetime(null), { revokeLifetime: true, minutes: 60 }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + HOUR, isLifetime: false });
    expect(adjustment.revokesLifetime).toBe(true);
    expect(adjustment.minutes).toBe(60);
  });

  it('revoke lifetime plus minutes stacks on running underlying time', () => {
    const { membership } = applyBulkChange(lifetime(NOW + HOUR), { revokeLifetime: true, minutes: 60 }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + 2 * HOUR, isLifetime: false });
  });

  it('revoke lifetime plus negative minutes shortens the underlying time', () => {
    const { membership } = applyBulkChange(lifetime(NOW + 2 * HOUR), { revokeLifetime: true, minutes: -60 }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + HOUR, isLifetime: false });
  });

  it('adding minutes to a lifetime membership stays lifetime', () => {
    const { membership } = applyBulkChange(lifetime(null), { minutes: 60 }, NOW, 'a');
    expect(membership).toEqual({ activeUntil: NOW + HOUR, isLifetime: true });
  });

  it('records a bulk adjustment with id, time, reason and no license', () => {
    const { adjustment } = applyBulkChange(timed(NOW + HOUR), { minutes: 15, reason: 'outage credit' }, NOW, 'adj-7');
    expect(adjustment).toEqual({
      id: 'adj-7',
      type: 'bulk',
      occurredAt: NOW,
      minutes: 15,
      grantsLifetime: false,
      revokesLifetime: false,
      licenseId: null,
      reason: 'outage credit',
    });
  });

  it('reason defaults to null', () => {
    expect(applyBulkChange(emptyMembership, { minutes: 5 }, NOW, 'a').adjustment.reason).toBeNull();
    expect(applyBulkChange(emptyMembership, { minutes: 5, reason: null }, NOW, 'a').adjustment.reason).toBeNull();
  });

  it('does not mutate its input', () => {
    const m = lifetime(NOW + HOUR);
    applyBulkChange(m, { revokeLifetime: true, minutes: 30 }, NOW, 'a');
    expect(m).toEqual(lifetime(NOW + HOUR));
  });
});

describe('membership lifecycle with an injected clock', () => {
  it('sign-up, license, expiry, re-activation', () => {
    let t = NOW;
    let m: Membership = emptyMembership;
    expect(membershipView(m, t).is_active).toBe(false);

    m = applyLicense(m, { licenseId: 'l1', minutes: 60 }, t, 'a1').membership;
    expect(membershipView(m, t)).toEqual({ is_active: true, is_lifetime: false, active_until: NOW + HOUR });

    t = NOW + HOUR - 1;
    expect(isMembershipActive(m, t)).toBe(true);
    t = NOW + HOUR;
    expect(isMembershipActive(m, t)).toBe(false);

    t = NOW + 3 * HOUR;
    m = applyLicense(m, { licenseId: 'l2', minutes: 60 }, t, 'a2').membership;
    expect(m.activeUntil).toBe(NOW + 4 * HOUR);
    expect(isMembershipActive(m, t)).toBe(true);
  });
});

describe('active_until bound', () => {
  it('never passes the year 9999, however much time is added', async () => {
    const { applyBulkChange, LATEST_ACTIVE_UNTIL } = await import('../../src/domain/membership.js');
    let m: { activeUntil: number | null; isLifetime: boolean } = { activeUntil: Date.UTC(9999, 0, 1), isLifetime: false };
    m = applyBulkChange(m, { minutes: 52_596_000 }, Date.UTC(2026, 0, 1), 'adj').membership;
    expect(m.activeUntil).toBe(LATEST_ACTIVE_UNTIL);
    expect(new Date(m.activeUntil as number).toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });
});
