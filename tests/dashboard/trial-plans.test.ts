// The settings page's trial plan choices (docs/plans.md, "Trials"): base plans with trial on, not
// archived, and the one named now whatever it has become, so the form never drops it silently.
import { describe, expect, it } from 'vitest';
import { trialPlanOptions } from '../../src/adapters/dashboard/src/trial-plans.js';
import type { Plan } from '../../src/adapters/dashboard/src/types.js';

const plan = (id: string, over: Partial<Plan> = {}): Plan => ({
  id,
  name: id,
  kind: 'base',
  duration_minutes: 60,
  entitlements: [],
  max_devices: null,
  max_sessions: null,
  seats: 1,
  grace_minutes: 0,
  trial: true,
  floating: false,
  max_borrow_minutes: 0,
  archived: false,
  created_at: '2026-06-08T12:00:00.000Z',
  updated_at: '2026-06-08T12:00:00.000Z',
  ...over,
});

describe('trialPlanOptions', () => {
  const plans = [plan('trial'), plan('pro', { trial: false }), plan('extra', { kind: 'add_on' }), plan('old', { archived: true })];

  it('offers no trial, then the base plans with trial on that are not archived', () => {
    expect(trialPlanOptions(plans, null)).toEqual([
      ['', 'No trial'],
      ['trial', 'trial'],
    ]);
  });

  it('keeps the named plan when it was archived or lost trial since, saying it offers nothing', () => {
    expect(trialPlanOptions(plans, 'old')).toEqual([
      ['', 'No trial'],
      ['trial', 'trial'],
      ['old', 'old (archived or not a trial: none offered)'],
    ]);
    expect(trialPlanOptions(plans, 'pro')[2]).toEqual(['pro', 'pro (archived or not a trial: none offered)']);
  });
});
