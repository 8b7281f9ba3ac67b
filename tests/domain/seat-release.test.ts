import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AddOnGrant } from '../../src/domain/add-on-grants.js';
import { emptyMembership, type Membership } from '../../src/domain/membership.js';
import { redeemLicense } from '../../src/domain/plan-redemption.js';
import { type HeldRedemption, releaseReason, releaseRedemption, type ReleasedFrom } from '../../src/domain/seat-release.js';
import { MINUTE_MS } from '../../src/domain/time.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const DAY = 24 * 60 * MINUTE_MS;
const MONTH = 30 * 24 * 60;

const timed = (activeUntil: number | null): Membership => ({ activeUntil, isLifetime: false });
const from = (membership: Membership, planId: string | null, grant: AddOnGrant | null = null): ReleasedFrom => ({ membership, planId, grant });
const base = (id: string, minutes: number | null, planFrom: string | null = null): HeldRedemption => ({ licenseId: 'lic-1', plan: { id, kind: 'base' }, planFrom, minutes });
const addOn = (id: string, minutes: number | null): HeldRedemption => ({ licenseId: 'lic-1', plan: { id, kind: 'add_on' }, planFrom: null, minutes });

function membershipOf(outcome: ReturnType<typeof releaseRedemption>) {
  if (outcome.kind !== 'membership') throw new Error(`expected a membership outcome, got ${outcome.kind}`);
  return outcome;
}

describe('releaseRedemption, a base plan', () => {
  it('takes back the minutes it added and the plan, recorded as a bulk adjustment naming the license', () => {
    const out = membershipOf(releaseRedemption(from(timed(NOW + 31 * DAY), 'pro'), base('pro', MONTH), NOW, 'adj-r'));
    expect(out.membership).toEqual(timed(NOW + DAY));
    expect(out.planId).toBeNull();
    expect(out.adjustment).toEqual({
      id: 'adj-r',
      type: 'bulk',
      occurredAt: NOW,
      minutes: -MONTH,
      grantsLifetime: false,
      revokesLifetime: false,
      licenseId: 'lic-1',
      reason: releaseReason('lic-1'),
      planFrom: 'pro',
      planTo: null,
    });
  });

  it('puts plan_from back after a switch', () => {
    const out = membershipOf(releaseRedemption(from(timed(NOW + 40 * DAY), 'pro'), base('pro', MONTH, 'basic'), NOW, 'adj-r'));
    expect(out.planId).toBe('basic');
    expect(out.adjustment).toMatchObject({ planFrom: 'pro', planTo: 'basic' });
  });

  it('leaves the plan alone when the membership moved on to another one since', () => {
    const out = membershipOf(releaseRedemption(from(timed(NOW + 40 * DAY), 'team'), base('pro', MONTH, 'basic'), NOW, 'adj-r'));
    expect(out.planId).toBe('team');
    expect(out.membership).toEqual(timed(NOW + 10 * DAY));
    expect(out.adjustment).toMatchObject({ planFrom: null, planTo: null });
  });

  it('a lifetime redemption revokes lifetime, keeping the time underneath', () => {
    const out = membershipOf(releaseRedemption(from({ activeUntil: NOW + DAY, isLifetime: true }, 'forever'), base('forever', null), NOW, 'adj-r'));
    expect(out.membership).toEqual(timed(NOW + DAY));
    expect(out.adjustment).toMatchObject({ minutes: null, revokesLifetime: true });
  });

  it('an expired membership has no time to lose', () => {
    const out = membershipOf(releaseRedemption(from(timed(NOW - DAY), 'pro'), base('pro', MONTH), NOW, 'adj-r'));
    expect(out.membership).toEqual(timed(NOW - DAY));
  });

  it('undoes a redemption made at the same instant on a membership without plan (property)', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 1000 * DAY })), fc.integer({ min: 1, max: 10 * MONTH }), (left, minutes) => {
        const before = left === null ? emptyMembership : timed(NOW + left);
        const redeemed = redeemLicense(
          { membership: before, planId: null, addOns: [] },
          { kind: 'plan', licenseId: 'lic-1', plan: { id: 'pro', name: 'Pro', kind: 'base', durationMinutes: minutes } },
          NOW,
          'adj-1',
        );
        if (redeemed.kind !== 'membership') throw new Error('expected a membership outcome');
        const out = membershipOf(releaseRedemption(from(redeemed.membership, redeemed.planId), base('pro', minutes, null), NOW, 'adj-r'));
        expect(out.planId).toBeNull();
        // What was left before the redemption, or nothing left (expired now) for a membership without time.
        expect(out.membership.activeUntil).toBe(NOW + (left ?? 0));
      }),
    );
  });
});

describe('releaseRedemption, an add-on', () => {
  it('shortens the grant by what the redemption added', () => {
    const out = releaseRedemption(from(emptyMembership, null, { planId: 'export', endsAt: NOW + 40 * DAY }), addOn('export', MONTH), NOW, 'adj-r');
    expect(out).toMatchObject({ kind: 'add_on', grant: { planId: 'export', endsAt: NOW + 10 * DAY } });
    expect(out.adjustment).toMatchObject({ type: 'bulk', minutes: null, licenseId: 'lic-1', reason: releaseReason('lic-1') });
  });

  it('ends the grant at once when what is left is less than what it added', () => {
    const out = releaseRedemption(from(emptyMembership, null, { planId: 'export', endsAt: NOW + DAY }), addOn('export', MONTH), NOW, 'adj-r');
    expect(out).toMatchObject({ kind: 'add_on', grant: { endsAt: NOW } });
  });

  it('a lifetime add-on ends the grant; a timed one leaves an endless grant endless', () => {
    expect(releaseRedemption(from(emptyMembership, null, { planId: 'x', endsAt: null }), addOn('x', null), NOW, 'a')).toMatchObject({ grant: { endsAt: NOW } });
    expect(releaseRedemption(from(emptyMembership, null, { planId: 'x', endsAt: null }), addOn('x', MONTH), NOW, 'a')).toMatchObject({ grant: { endsAt: null } });
  });

  it('an ended grant, or none, is left as it is', () => {
    expect(releaseRedemption(from(emptyMembership, null, { planId: 'x', endsAt: NOW - DAY }), addOn('x', MONTH), NOW, 'a')).toMatchObject({ grant: { endsAt: NOW - DAY } });
    expect(releaseRedemption(from(emptyMembership, null, null), addOn('x', MONTH), NOW, 'a')).toMatchObject({ grant: null });
  });
});
