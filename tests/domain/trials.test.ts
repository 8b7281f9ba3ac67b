// Trials (docs/plans.md, "Trials"): which plan may be named, and start_trial's checks in order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyMembership } from '../../src/domain/membership.js';
import { assertTrialPlan, startTrial, type TrialRequest } from '../../src/domain/trials.js';
import { MINUTE_MS } from '../../src/domain/time.js';
import { expectDomainError, expectValidationError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const WEEK = 7 * 24 * 60;
const plan = { id: 'trial', name: 'Trial', kind: 'base' as const, trial: true, archived: false, durationMinutes: WEEK };
const newcomer = { membership: emptyMembership, planId: null, trialStartedAt: null };
const request = (over: Partial<TrialRequest<typeof plan>> = {}): TrialRequest<typeof plan> => ({ plan, user: newcomer, addOns: [], hardwareUsed: false, ...over });

describe('assertTrialPlan', () => {
  it('takes a base plan with trial, not archived', () => {
    expect(() => assertTrialPlan(plan)).not.toThrow();
  });

  it('refuses a missing plan (404), another kind or no trial (422 on trial_plan_id), an archived one', () => {
    expectDomainError(() => assertTrialPlan(null), 'PLAN_NOT_FOUND');
    expectValidationError(() => assertTrialPlan({ ...plan, trial: false }), 'trial_plan_id');
    expectValidationError(() => assertTrialPlan({ ...plan, kind: 'add_on' }), 'trial_plan_id');
    expectDomainError(() => assertTrialPlan({ ...plan, archived: true }), 'PLAN_ARCHIVED');
  });
});

describe('startTrial', () => {
  it('grants the plan for its duration from now, as a trial adjustment without a license', () => {
    const out = startTrial(request(), NOW, 'adj-1');
    expect(out.membership).toEqual({ activeUntil: NOW + WEEK * MINUTE_MS, isLifetime: false });
    expect(out.planId).toBe('trial');
    expect(out.plan).toBe(plan);
    expect(out.adjustment).toEqual({
      id: 'adj-1',
      type: 'trial',
      occurredAt: NOW,
      minutes: WEEK,
      grantsLifetime: false,
      revokesLifetime: false,
      licenseId: null,
      reason: null,
      planFrom: null,
      planTo: 'trial',
    });
  });

  it('counts from now on a lapsed membership without a plan', () => {
    const out = startTrial(request({ user: { ...newcomer, membership: { activeUntil: NOW - 1, isLifetime: false } } }), NOW, 'adj-1');
    expect(out.membership.activeUntil).toBe(NOW + WEEK * MINUTE_MS);
  });

  it('refuses a plan that no longer offers a trial: gone, archived, no trial', () => {
    for (const p of [null, { ...plan, archived: true }, { ...plan, trial: false }, { ...plan, kind: 'add_on' as const }]) {
      expectDomainError(() => startTrial(request({ plan: p as typeof plan | null }), NOW, 'a'), 'TRIAL_NOT_OFFERED');
    }
  });

  it('refuses a second trial of the user or of the machine', () => {
    expectDomainError(() => startTrial(request({ user: { ...newcomer, trialStartedAt: NOW - 1 } }), NOW, 'a'), 'TRIAL_USED');
    expectDomainError(() => startTrial(request({ hardwareUsed: true }), NOW, 'a'), 'TRIAL_USED');
  });

  it('refuses a user holding a plan (even lapsed), a running add-on grant, or an active membership', () => {
    const lapsed = { activeUntil: NOW - 1, isLifetime: false };
    expectDomainError(() => startTrial(request({ user: { ...newcomer, membership: lapsed, planId: 'pro' } }), NOW, 'a'), 'TRIAL_NOT_ELIGIBLE');
    expectDomainError(() => startTrial(request({ addOns: [{ planId: 'extra', endsAt: null }] }), NOW, 'a'), 'TRIAL_NOT_ELIGIBLE');
    expectDomainError(() => startTrial(request({ user: { ...newcomer, membership: { activeUntil: NOW + 1, isLifetime: false } } }), NOW, 'a'), 'TRIAL_NOT_ELIGIBLE');
    expectDomainError(() => startTrial(request({ user: { ...newcomer, membership: { activeUntil: null, isLifetime: true } } }), NOW, 'a'), 'TRIAL_NOT_ELIGIBLE');
    // An add-on grant that ended is not held.
    expect(startTrial(request({ addOns: [{ planId: 'extra', endsAt: NOW }] }), NOW, 'a').planId).toBe('trial');
  });

  it('checks in order: offered, then used, then eligible, whatever else holds', () => {
    const refusal = fc.record({ offered: fc.boolean(), usedByUser: fc.boolean(), usedMachine: fc.boolean(), member: fc.boolean() });
    fc.assert(
      fc.property(refusal, (r) => {
        const req = request({
          plan: r.offered ? plan : null,
          hardwareUsed: r.usedMachine,
          user: { ...newcomer, trialStartedAt: r.usedByUser ? NOW - 1 : null, membership: r.member ? { activeUntil: NOW + 1, isLifetime: false } : emptyMembership },
        });
        const expected = !r.offered ? 'TRIAL_NOT_OFFERED' : r.usedByUser || r.usedMachine ? 'TRIAL_USED' : r.member ? 'TRIAL_NOT_ELIGIBLE' : null;
        if (expected === null) expect(startTrial(req, NOW, 'a').planId).toBe('trial');
        else expectDomainError(() => startTrial(req, NOW, 'a'), expected);
      }),
    );
  });
});
