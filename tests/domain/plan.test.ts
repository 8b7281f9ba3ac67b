import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptEntitlements, createPlan, patchPlan, type NewPlan, type Plan } from '../../src/domain/plan.js';
import { expectValidationError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const pro: NewPlan = { name: 'Pro', kind: 'base', durationMinutes: 43_200 };
const make = (input: Partial<NewPlan> = {}): Plan => createPlan({ ...pro, ...input }, 'plan-1', 'app-1', NOW);

describe('createPlan', () => {
  it('fills the defaults the spec gives and is not archived', () => {
    expect(make()).toEqual({
      id: 'plan-1',
      applicationId: 'app-1',
      name: 'Pro',
      kind: 'base',
      durationMinutes: 43_200,
      entitlements: [],
      maxDevices: null,
      maxSessions: null,
      seats: 1,
      graceMinutes: 0,
      trial: false,
      floating: false,
      maxBorrowMinutes: 0,
      archived: false,
      createdAt: NOW,
      updatedAt: NOW,
    });
  });

  it('keeps what is given; undefined takes the default', () => {
    const plan = make({
      name: '  Team  ',
      durationMinutes: null,
      entitlements: ['export'],
      maxDevices: 0,
      maxSessions: 1000,
      seats: 10_000,
      graceMinutes: 525_600,
      trial: true,
      floating: true,
      maxBorrowMinutes: 43_200,
    });
    expect(plan).toMatchObject({ name: 'Team', durationMinutes: null, maxDevices: 0, maxSessions: 1000, seats: 10_000, graceMinutes: 525_600, trial: true, floating: true, maxBorrowMinutes: 43_200 });
    expect(make({ seats: undefined, maxDevices: undefined }).seats).toBe(1);
  });

  it('takes names of 1 to 100 characters, trimmed', () => {
    expect(make({ name: 'x'.repeat(100) }).name).toHaveLength(100);
    expectValidationError(() => make({ name: 'x'.repeat(101) }), 'name');
    expectValidationError(() => make({ name: '   ' }), 'name');
  });

  it('takes a kind of base or add_on only', () => {
    expect(make({ kind: 'add_on' }).kind).toBe('add_on');
    expectValidationError(() => make({ kind: 'tier' as never }), 'kind');
  });

  it('takes a duration of 1 to 52,560,000 minutes or null; it must be given', () => {
    expect(make({ durationMinutes: 1 }).durationMinutes).toBe(1);
    expect(make({ durationMinutes: 52_560_000 }).durationMinutes).toBe(52_560_000);
    for (const bad of [0, -1, 52_560_001, 1.5, Number.NaN]) expectValidationError(() => make({ durationMinutes: bad }), 'duration_minutes');
    expectValidationError(() => make({ durationMinutes: undefined as never }), 'duration_minutes');
  });

  it('checks each cap, seats, grace and borrowing on its edges', () => {
    const edges: [keyof NewPlan, string, number, number][] = [
      ['maxDevices', 'max_devices', 0, 1000],
      ['maxSessions', 'max_sessions', 1, 1000],
      ['seats', 'seats', 1, 10_000],
      ['graceMinutes', 'grace_minutes', 0, 525_600],
      ['maxBorrowMinutes', 'max_borrow_minutes', 0, 43_200],
    ];
    for (const [key, field, min, max] of edges) {
      expect(make({ [key]: min })[key]).toBe(min);
      expect(make({ [key]: max })[key]).toBe(max);
      expectValidationError(() => make({ [key]: min - 1 }), field);
      expectValidationError(() => make({ [key]: max + 1 }), field);
      expectValidationError(() => make({ [key]: min + 0.5 }), field);
    }
    expect(make({ maxDevices: null, maxSessions: null })).toMatchObject({ maxDevices: null, maxSessions: null });
  });

  it('allows the trial flag on base plans only', () => {
    expect(make({ trial: true }).trial).toBe(true);
    expectValidationError(() => make({ kind: 'add_on', trial: true }), 'trial');
    expect(make({ kind: 'add_on', trial: false }).trial).toBe(false);
  });
});

describe('acceptEntitlements', () => {
  it('sorts and drops repeats', () => {
    expect(acceptEntitlements(['export', 'beta', 'export', 'a:b.c-d_e'])).toEqual(['a:b.c-d_e', 'beta', 'export']);
    expect(make({ entitlements: ['z', 'a', 'z'] }).entitlements).toEqual(['a', 'z']);
  });

  it('takes codes of 1 to 64 characters of [a-z0-9_.:-], at most 100', () => {
    expect(acceptEntitlements(['x'.repeat(64)])).toHaveLength(1);
    for (const bad of ['', 'x'.repeat(65), 'Export', 'a b', 'é', 'a/b', 'a\n']) expectValidationError(() => acceptEntitlements([bad]), 'entitlements');
    const hundred = Array.from({ length: 100 }, (_, i) => `e${i}`);
    expect(acceptEntitlements(hundred)).toHaveLength(100);
    expectValidationError(() => acceptEntitlements([...hundred, 'e100']), 'entitlements');
  });

  it('accepts exactly the codes of the pattern, whatever the text', () => {
    // Mostly near-codes (the alphabet, one letter out of it, around 64 long), some any text.
    const near = fc.string({ unit: fc.constantFrom(...'az09_.:-A /é'), minLength: 0, maxLength: 66 });
    fc.assert(
      fc.property(fc.oneof(near, fc.string({ maxLength: 70 })), (code) => {
        const good = /^[a-z0-9_.:-]{1,64}$/.test(code);
        if (good) expect(acceptEntitlements([code])).toEqual([code]);
        else expectValidationError(() => acceptEntitlements([code]), 'entitlements');
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});

describe('patchPlan', () => {
  const LATER = NOW + 1000;

  it('lays the patch over the plan, checks it whole and stamps updated_at', () => {
    const plan = make({ entitlements: ['export'] });
    const patched = patchPlan(plan, { entitlements: ['beta', 'export', 'beta'], graceMinutes: 4320, name: undefined }, LATER);
    expect(patched).toEqual({ ...plan, entitlements: ['beta', 'export'], graceMinutes: 4320, updatedAt: LATER });
    expectValidationError(() => patchPlan(plan, { seats: 0 }, LATER), 'seats');
  });

  it('archives and restores', () => {
    const archived = patchPlan(make(), { archived: true }, LATER);
    expect(archived.archived).toBe(true);
    expect(patchPlan(archived, { archived: false }, LATER).archived).toBe(false);
    expect(patchPlan(archived, { name: 'Pro 2' }, LATER).archived).toBe(true);
  });

  it('never changes the kind, and refuses the trial flag on an add-on', () => {
    expect(patchPlan(make(), { kind: 'base' }, LATER).kind).toBe('base');
    expectValidationError(() => patchPlan(make(), { kind: 'add_on' }, LATER), 'kind');
    expectValidationError(() => patchPlan(make({ kind: 'add_on' }), { trial: true }, LATER), 'trial');
  });

  it('may make a timed plan lifetime and back', () => {
    const lifetime = patchPlan(make(), { durationMinutes: null }, LATER);
    expect(lifetime.durationMinutes).toBeNull();
    expect(patchPlan(lifetime, { durationMinutes: 60 }, LATER).durationMinutes).toBe(60);
  });
});
