import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activeGrantOf, stackAddOnGrant, type AddOnGrant } from '../../src/domain/add-on-grants.js';
import { emptyMembership, LATEST_ACTIVE_UNTIL, type Membership } from '../../src/domain/membership.js';
import { redeemLicense, type HeldAccess, type RedeemedLicense } from '../../src/domain/plan-redemption.js';
import { MINUTE_MS } from '../../src/domain/time.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const HOUR = 60 * MINUTE_MS;
const DAY = 24 * HOUR;
const MONTH = 30 * 24 * 60;

const timed = (activeUntil: number | null): Membership => ({ activeUntil, isLifetime: false });
const lifetime = (activeUntil: number | null): Membership => ({ activeUntil, isLifetime: true });
const held = (membership: Membership, planId: string | null = null, addOns: AddOnGrant[] = []): HeldAccess => ({ membership, planId, addOns });
const basePlan = (id: string, durationMinutes: number | null): RedeemedLicense => ({ kind: 'plan', licenseId: `lic-${id}`, plan: { id, name: id, kind: 'base', durationMinutes } });
const addOn = (id: string, durationMinutes: number | null): RedeemedLicense => ({ kind: 'plan', licenseId: `lic-${id}`, plan: { id, name: id, kind: 'add_on', durationMinutes } });
const minutes = (m: number | null): RedeemedLicense => ({ kind: 'minutes', licenseId: 'lic-min', minutes: m });

/** The membership outcome, failing the test on an add-on outcome. */
function redeemed(h: HeldAccess, license: RedeemedLicense, now = NOW) {
  const outcome = redeemLicense(h, license, now, 'adj-1');
  if (outcome.kind !== 'membership') throw new Error(`expected a membership outcome, got ${outcome.kind}`);
  return outcome;
}

describe('redeemLicense, a base plan', () => {
  it('on no plan: takes the plan and adds its duration from now; recorded as a change from none, not a switch', () => {
    const out = redeemed(held(emptyMembership), basePlan('pro', MONTH));
    expect(out.membership).toEqual(timed(NOW + 30 * DAY));
    expect(out.planId).toBe('pro');
    expect(out.switched).toBe(false);
    expect(out.adjustment).toEqual({
      id: 'adj-1',
      type: 'license',
      occurredAt: NOW,
      minutes: MONTH,
      grantsLifetime: false,
      revokesLifetime: false,
      licenseId: 'lic-pro',
      reason: null,
      planFrom: null,
      planTo: 'pro',
    });
  });

  it('on a membership without plan but with time: keeps the time and adds the duration', () => {
    const out = redeemed(held(timed(NOW + DAY)), basePlan('pro', MONTH));
    expect(out.membership).toEqual(timed(NOW + 31 * DAY));
    expect(out.planId).toBe('pro');
  });

  it('the same plan stacks on active_until; nothing changes plan', () => {
    const out = redeemed(held(timed(NOW + DAY), 'pro'), basePlan('pro', MONTH));
    expect(out.membership).toEqual(timed(NOW + 31 * DAY));
    expect(out.planId).toBe('pro');
    expect(out.switched).toBe(false);
    expect(out.adjustment).toMatchObject({ planFrom: null, planTo: null });
  });

  it('the same plan on an expired membership starts from now, never the expired past', () => {
    expect(redeemed(held(timed(NOW - 5 * DAY), 'pro'), basePlan('pro', MONTH)).membership).toEqual(timed(NOW + 30 * DAY));
    // At active_until exactly, nothing remains to keep.
    expect(redeemed(held(timed(NOW), 'pro'), basePlan('pro', MONTH)).membership).toEqual(timed(NOW + 30 * DAY));
  });

  it('another plan switches, keeping the remaining time plus the new duration, and records both plans', () => {
    const out = redeemed(held(timed(NOW + 10 * DAY), 'basic'), basePlan('pro', MONTH));
    expect(out.membership).toEqual(timed(NOW + 40 * DAY));
    expect(out.planId).toBe('pro');
    expect(out.switched).toBe(true);
    expect(out.adjustment).toMatchObject({ minutes: MONTH, licenseId: 'lic-pro', planFrom: 'basic', planTo: 'pro' });
  });

  it('switching from an expired plan keeps nothing of the past: the new duration from now', () => {
    const out = redeemed(held(timed(NOW - DAY), 'basic'), basePlan('pro', MONTH));
    expect(out.membership).toEqual(timed(NOW + 30 * DAY));
    expect(out.switched).toBe(true);
  });

  it('a lifetime plan grants lifetime, keeping the time underneath', () => {
    const out = redeemed(held(timed(NOW + DAY), 'basic'), basePlan('forever', null));
    expect(out.membership).toEqual(lifetime(NOW + DAY));
    expect(out.adjustment).toMatchObject({ minutes: null, grantsLifetime: true, planFrom: 'basic', planTo: 'forever' });
    expect(redeemed(held(emptyMembership), basePlan('forever', null)).membership).toEqual(lifetime(null));
  });

  it('a lifetime membership stays lifetime: the same plan adds to the time underneath', () => {
    const out = redeemed(held(lifetime(NOW + DAY), 'pro'), basePlan('pro', MONTH));
    expect(out.membership).toEqual(lifetime(NOW + 31 * DAY));
    expect(redeemed(held(lifetime(null), 'pro'), basePlan('pro', MONTH)).membership).toEqual(lifetime(NOW + 30 * DAY));
  });

  it('switching a lifetime membership keeps lifetime and takes the new plan (docs/plans.md)', () => {
    const out = redeemed(held(lifetime(null), 'basic'), basePlan('pro', MONTH));
    expect(out.membership).toEqual(lifetime(NOW + 30 * DAY));
    expect(out.planId).toBe('pro');
    expect(out.switched).toBe(true);
  });

  it('never sets active_until past the latest instant kept', () => {
    expect(redeemed(held(timed(LATEST_ACTIVE_UNTIL - HOUR), 'pro'), basePlan('pro', 52_560_000)).membership).toEqual(timed(LATEST_ACTIVE_UNTIL));
  });

  it('reads the duration at redemption: the one given counts', () => {
    expect(redeemed(held(emptyMembership), basePlan('pro', 60)).membership).toEqual(timed(NOW + HOUR));
  });
});

describe('redeemLicense, a minutes license', () => {
  it('adds time and keeps the plan, also on an expired membership', () => {
    const out = redeemed(held(timed(NOW + DAY), 'pro'), minutes(60));
    expect(out.membership).toEqual(timed(NOW + DAY + HOUR));
    expect(out.planId).toBe('pro');
    expect(out.switched).toBe(false);
    expect(out.adjustment).toMatchObject({ minutes: 60, licenseId: 'lic-min', planFrom: null, planTo: null });
    expect(redeemed(held(timed(NOW - DAY), 'pro'), minutes(60)).membership).toEqual(timed(NOW + HOUR));
  });

  it('behaves as before on a membership without a plan, lifetime included', () => {
    expect(redeemed(held(emptyMembership), minutes(60))).toMatchObject({ membership: timed(NOW + HOUR), planId: null });
    expect(redeemed(held(timed(NOW + HOUR)), minutes(null))).toMatchObject({ membership: lifetime(NOW + HOUR), planId: null });
  });
});

describe('redeemLicense, an add-on', () => {
  const grant = (planId: string, endsAt: number | null): AddOnGrant => ({ planId, endsAt });
  // What the add-on's redemption records: the license, adding nothing to the membership.
  const recorded = (id: string) => ({
    id,
    type: 'license',
    occurredAt: NOW,
    minutes: null,
    grantsLifetime: false,
    revokesLifetime: false,
    licenseId: 'lic-dlc',
    reason: 'add-on dlc',
    planFrom: null,
    planTo: null,
  });

  it('leaves the membership alone and grants the add-on for its duration from now', () => {
    expect(redeemLicense(held(emptyMembership, 'pro'), addOn('dlc', MONTH), NOW, 'adj-1')).toEqual({
      kind: 'add_on',
      grant: grant('dlc', NOW + 30 * DAY),
      stacked: false,
      adjustment: recorded('adj-1'),
    });
  });

  it('stacks on an active grant of the same add-on, from its end', () => {
    const out = redeemLicense(held(timed(NOW + DAY), 'pro', [grant('dlc', NOW + 5 * DAY), grant('other', NOW + 50 * DAY)]), addOn('dlc', MONTH), NOW, 'a');
    expect(out).toEqual({ kind: 'add_on', grant: grant('dlc', NOW + 35 * DAY), stacked: true, adjustment: recorded('a') });
  });

  it('an ended grant of it, or one ending now, is not stacked on', () => {
    for (const endsAt of [NOW - DAY, NOW])
      expect(redeemLicense(held(emptyMembership, null, [grant('dlc', endsAt)]), addOn('dlc', 60), NOW, 'a')).toEqual({
        kind: 'add_on',
        grant: grant('dlc', NOW + HOUR),
        stacked: false,
        adjustment: recorded('a'),
      });
    expect(redeemLicense(held(emptyMembership, null, [grant('dlc', NOW + 1)]), addOn('dlc', 60), NOW, 'a')).toEqual({
      kind: 'add_on',
      grant: grant('dlc', NOW + 1 + HOUR),
      stacked: true,
      adjustment: recorded('a'),
    });
  });

  it('a lifetime add-on never ends; a timed one on a lifetime grant stays lifetime', () => {
    expect(redeemLicense(held(emptyMembership, null, [grant('dlc', NOW + DAY)]), addOn('dlc', null), NOW, 'a')).toEqual({
      kind: 'add_on',
      grant: grant('dlc', null),
      stacked: true,
      adjustment: recorded('a'),
    });
    expect(redeemLicense(held(emptyMembership, null, [grant('dlc', null)]), addOn('dlc', 60), NOW, 'a')).toEqual({
      kind: 'add_on',
      grant: grant('dlc', null),
      stacked: true,
      adjustment: recorded('a'),
    });
  });

  it('never ends past the latest instant kept', () => {
    expect(stackAddOnGrant([grant('dlc', LATEST_ACTIVE_UNTIL - HOUR)], 'dlc', 52_560_000, NOW).grant.endsAt).toBe(LATEST_ACTIVE_UNTIL);
  });
});

describe('activeGrantOf', () => {
  it('finds the active grant of the add-on ending last, lifetime first', () => {
    const grants = [
      { planId: 'dlc', endsAt: NOW + HOUR },
      { planId: 'dlc', endsAt: NOW + DAY },
      { planId: 'x', endsAt: NOW + 9 * DAY },
      { planId: 'dlc', endsAt: NOW - DAY },
    ];
    expect(activeGrantOf(grants, 'dlc', NOW)).toEqual({ planId: 'dlc', endsAt: NOW + DAY });
    expect(activeGrantOf([...grants, { planId: 'dlc', endsAt: null }], 'dlc', NOW)).toEqual({ planId: 'dlc', endsAt: null });
    expect(activeGrantOf(grants, 'dlc', NOW + 2 * DAY)).toBeNull();
    expect(activeGrantOf(grants, 'none', NOW)).toBeNull();
  });
});

describe('redeemLicense, for any holdings', () => {
  const instant = fc.integer({ min: NOW - 40 * DAY, max: NOW + 40 * DAY });
  const membership = fc.record({ activeUntil: fc.option(instant), isLifetime: fc.boolean() }) as fc.Arbitrary<Membership>;
  const planId = fc.option(fc.constantFrom('basic', 'pro'));
  const duration = fc.option(fc.integer({ min: 1, max: 52_560_000 }), { freq: 6 });
  const grants = fc.array(fc.record({ planId: fc.constantFrom('dlc', 'other'), endsAt: fc.option(instant, { freq: 6 }) }), { maxLength: 3 });
  const settings = { seed: 42, numRuns: 500 };

  it('a base plan adds time exactly as a minutes license of its duration, and only the plan differs', () => {
    fc.assert(
      fc.property(membership, planId, fc.constantFrom('basic', 'pro'), duration, fc.integer({ min: NOW - DAY, max: NOW + DAY }), (m, from, to, d, now) => {
        const byPlan = redeemed(held(m, from), basePlan(to, d), now);
        const byMinutes = redeemed(held(m, from), { kind: 'minutes', licenseId: `lic-${to}`, minutes: d }, now);
        expect(byPlan.membership).toEqual(byMinutes.membership);
        expect(byMinutes.planId).toBe(from);
        expect(byPlan.planId).toBe(to);
        expect(byPlan.switched).toBe(from !== null && from !== to);
        expect([byPlan.adjustment.planFrom, byPlan.adjustment.planTo]).toEqual(from === to ? [null, null] : [from, to]);
      }),
      settings,
    );
  });

  it('never shortens access: lifetime stays lifetime, active_until only moves on, from now at the least', () => {
    fc.assert(
      fc.property(membership, planId, duration, instant, (m, from, d, now) => {
        const after = redeemed(held(m, from), basePlan('pro', d), now).membership;
        expect(after.isLifetime).toBe(m.isLifetime || d === null);
        if (d === null) return;
        const expected = Math.min(LATEST_ACTIVE_UNTIL, Math.max(now, m.activeUntil ?? now) + d * MINUTE_MS);
        expect(after.activeUntil).toBe(expected);
      }),
      settings,
    );
  });

  it('an add-on leaves the membership alone and ends no sooner than any active grant of it', () => {
    fc.assert(
      fc.property(membership, planId, grants, duration, instant, (m, from, gs, d, now) => {
        const out = redeemLicense(held(m, from, gs), addOn('dlc', d), now, 'a');
        if (out.kind !== 'add_on') throw new Error('expected an add-on outcome');
        const active = gs.filter((g) => g.planId === 'dlc' && (g.endsAt === null || g.endsAt > now));
        expect(out.stacked).toBe(active.length > 0);
        if (d === null || active.some((g) => g.endsAt === null)) expect(out.grant.endsAt).toBeNull();
        else expect(out.grant.endsAt).toBe(Math.min(LATEST_ACTIVE_UNTIL, Math.max(now, ...active.map((g) => g.endsAt as number)) + d * MINUTE_MS));
      }),
      settings,
    );
  });
});
