// Plans (docs/plans.md): what a license of a plan grants. Holders read the plan rather than a copy,
// so a change of entitlements or caps reaches them at once; its duration counts at redemption.
import { validateName } from './application-settings.js';
import { validationError } from './errors.js';
import type { Instant } from './time.js';

export type PlanKind = 'base' | 'add_on';

export const PLAN_NAME_MAX = 100;
/** A hundred years; null is lifetime. */
export const PLAN_DURATION_MAX_MINUTES = 52_560_000;
export const ENTITLEMENT_CODE_PATTERN = /^[a-z0-9_.:-]{1,64}$/;
export const ENTITLEMENTS_PER_PLAN_MAX = 100;
export const PLAN_MAX_DEVICES_MAX = 1000;
export const PLAN_MAX_SESSIONS_MAX = 1000;
export const PLAN_SEATS_MAX = 10_000;
/** A year. */
export const PLAN_GRACE_MINUTES_MAX = 525_600;
/** Thirty days (docs/machines.md's borrowing). */
export const PLAN_MAX_BORROW_MINUTES_MAX = 43_200;

/** What an owner sets on a plan. */
export interface PlanTerms {
  name: string;
  kind: PlanKind;
  /** null: lifetime. */
  durationMinutes: number | null;
  /** Sorted, without repeats. */
  entitlements: string[];
  /** null: the application's default. */
  maxDevices: number | null;
  /** null: the application's default. */
  maxSessions: number | null;
  seats: number;
  graceMinutes: number;
  /** Base plans only. */
  trial: boolean;
  floating: boolean;
  /** 0: no borrowing. */
  maxBorrowMinutes: number;
}

export interface Plan extends PlanTerms {
  id: string;
  applicationId: string;
  /** No new licenses of it; existing ones and their holders are unaffected. */
  archived: boolean;
  createdAt: Instant;
  updatedAt: Instant;
}

/** A new plan: name, kind and duration are given; the rest have the spec's defaults. */
export type NewPlan = Pick<PlanTerms, 'name' | 'kind' | 'durationMinutes'> & Partial<Omit<PlanTerms, 'name' | 'kind' | 'durationMinutes'>>;

/** A change: what is given replaces what the plan has; undefined leaves it. */
export type PlanPatch = Partial<PlanTerms & { archived: boolean }>;

const planDefaults = { entitlements: [], maxDevices: null, maxSessions: null, seats: 1, graceMinutes: 0, trial: false, floating: false, maxBorrowMinutes: 0 } satisfies Partial<PlanTerms>;

function checkRange(field: string, n: number, min: number, max: number): void {
  if (!Number.isInteger(n) || n < min || n > max) throw validationError(field, `must be an integer from ${min} to ${max}`);
}

function checkKind(kind: string): asserts kind is PlanKind {
  if (kind !== 'base' && kind !== 'add_on') throw validationError('kind', 'must be base or add_on');
}

/** The codes sorted and without repeats; a bad code or more than the limit given is refused. */
export function acceptEntitlements(codes: readonly string[]): string[] {
  if (codes.length > ENTITLEMENTS_PER_PLAN_MAX) throw validationError('entitlements', `at most ${ENTITLEMENTS_PER_PLAN_MAX} codes`);
  for (const code of codes) {
    if (typeof code !== 'string' || !ENTITLEMENT_CODE_PATTERN.test(code)) {
      throw validationError('entitlements', `${JSON.stringify(code)} is not a code: 1 to 64 characters of a-z, 0-9, _, ., : and -`);
    }
  }
  return [...new Set(codes)].sort();
}

/** Checks every term and returns them in their stored form (name trimmed, entitlements sorted). */
export function validatePlanTerms(t: PlanTerms): PlanTerms {
  const name = validateName('name', t.name, PLAN_NAME_MAX);
  checkKind(t.kind);
  if (t.durationMinutes === undefined) throw validationError('duration_minutes', 'is required: minutes, or null for lifetime');
  if (t.durationMinutes !== null) checkRange('duration_minutes', t.durationMinutes, 1, PLAN_DURATION_MAX_MINUTES);
  const entitlements = acceptEntitlements(t.entitlements);
  if (t.maxDevices !== null) checkRange('max_devices', t.maxDevices, 0, PLAN_MAX_DEVICES_MAX);
  if (t.maxSessions !== null) checkRange('max_sessions', t.maxSessions, 1, PLAN_MAX_SESSIONS_MAX);
  checkRange('seats', t.seats, 1, PLAN_SEATS_MAX);
  checkRange('grace_minutes', t.graceMinutes, 0, PLAN_GRACE_MINUTES_MAX);
  if (t.trial && t.kind !== 'base') throw validationError('trial', 'only a base plan can be a trial plan');
  checkRange('max_borrow_minutes', t.maxBorrowMinutes, 0, PLAN_MAX_BORROW_MINUTES_MAX);
  return { ...t, name, entitlements };
}

const termsOf = (p: Plan): PlanTerms => ({
  name: p.name,
  kind: p.kind,
  durationMinutes: p.durationMinutes,
  entitlements: p.entitlements,
  maxDevices: p.maxDevices,
  maxSessions: p.maxSessions,
  seats: p.seats,
  graceMinutes: p.graceMinutes,
  trial: p.trial,
  floating: p.floating,
  maxBorrowMinutes: p.maxBorrowMinutes,
});

/** A plan as created: defaults filled, every term checked (VALIDATION_FAILED), not archived. */
export function createPlan(input: NewPlan, id: string, applicationId: string, now: Instant): Plan {
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as NewPlan;
  const terms = validatePlanTerms({ ...planDefaults, ...given });
  return { id, applicationId, ...terms, archived: false, createdAt: now, updatedAt: now };
}

/** The plan with the patch laid over it, checked whole. A plan's kind is fixed once created: holders
 * of a base plan would otherwise hold an add-on as their membership's plan (docs/plans.md). */
export function patchPlan(current: Plan, patch: PlanPatch, now: Instant): Plan {
  const { archived, ...given } = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as PlanPatch;
  if (given.kind !== undefined && given.kind !== current.kind) throw validationError('kind', 'cannot change once the plan exists');
  const terms = validatePlanTerms({ ...termsOf(current), ...given });
  return { ...current, ...terms, archived: archived ?? current.archived, updatedAt: now };
}
