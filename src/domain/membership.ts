import { DomainError } from './errors.js';
import { type Instant, MINUTE_MS } from './time.js';

/** A user's access. `activeUntil` is kept underneath a lifetime grant so that revoking lifetime
 * returns the membership to whatever time it still had. */
export interface Membership {
  activeUntil: Instant | null;
  isLifetime: boolean;
}

export const emptyMembership: Membership = { activeUntil: null, isLifetime: false };

export function isMembershipActive(m: Membership, now: Instant): boolean {
  return m.isLifetime || (m.activeUntil !== null && m.activeUntil > now);
}

/** What clients see: active_until is null while lifetime or never granted. */
export function membershipView(m: Membership, now: Instant) {
  return {
    is_active: isMembershipActive(m, now),
    is_lifetime: m.isLifetime,
    active_until: m.isLifetime ? null : m.activeUntil,
  };
}

/** `trial`: start_trial granted the trial plan, without a license (docs/plans.md, "Trials"). */
export type AdjustmentType = 'license' | 'bulk' | 'trial';

export interface Adjustment {
  id: string;
  type: AdjustmentType;
  occurredAt: Instant;
  minutes: number | null;
  grantsLifetime: boolean;
  revokesLifetime: boolean;
  licenseId: string | null;
  reason: string | null;
}

/** The latest active_until kept: 9999-12-31T23:59:59.999Z, the last instant ISO 8601 writes plainly. */
export const LATEST_ACTIVE_UNTIL = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Adds minutes to max(now, activeUntil): time never stacks on an expired past, nor past the year 9999. */
export function extend(m: Membership, minutes: number, now: Instant): Membership {
  const base = m.activeUntil !== null && m.activeUntil > now ? m.activeUntil : now;
  return { ...m, activeUntil: Math.min(LATEST_ACTIVE_UNTIL, base + minutes * MINUTE_MS) };
}

/** Removes minutes from remaining time; an expired or never-granted membership has none to remove. */
function shorten(m: Membership, minutes: number, now: Instant): Membership {
  if (m.activeUntil === null || m.activeUntil <= now) return m;
  return { ...m, activeUntil: m.activeUntil - minutes * MINUTE_MS };
}

export interface LicenseGrant {
  licenseId: string;
  /** null: lifetime. */
  minutes: number | null;
}

export function applyLicense(m: Membership, license: LicenseGrant, now: Instant, adjustmentId: string): { membership: Membership; adjustment: Adjustment } {
  const lifetime = license.minutes === null;
  const membership = lifetime ? { ...m, isLifetime: true } : extend(m, license.minutes as number, now);
  return {
    membership,
    adjustment: {
      id: adjustmentId,
      type: 'license',
      occurredAt: now,
      minutes: license.minutes,
      grantsLifetime: lifetime,
      revokesLifetime: false,
      licenseId: license.licenseId,
      reason: null,
    },
  };
}

export interface BulkChange {
  /** May be negative. Not combined with grantLifetime. */
  minutes?: number | null;
  grantLifetime?: boolean;
  revokeLifetime?: boolean;
  reason?: string | null;
}

/** Checks an owner's bulk change against the rules of the console API before anything is written. */
export function validateBulkChange(c: BulkChange): void {
  const hasMinutes = c.minutes !== undefined && c.minutes !== null;
  if (hasMinutes && c.grantLifetime) {
    throw new DomainError('VALIDATION_FAILED', 'minutes cannot be combined with grant_lifetime', {
      errors: [{ field: 'minutes', message: 'cannot be combined with grant_lifetime' }],
    });
  }
  if (c.grantLifetime && c.revokeLifetime) {
    throw new DomainError('VALIDATION_FAILED', 'grant_lifetime and revoke_lifetime cannot be combined', {
      errors: [{ field: 'revoke_lifetime', message: 'cannot be combined with grant_lifetime' }],
    });
  }
  if (!hasMinutes && !c.grantLifetime && !c.revokeLifetime) {
    throw new DomainError('VALIDATION_FAILED', 'nothing to adjust: give minutes, grant_lifetime or revoke_lifetime', {
      errors: [{ field: 'minutes', message: 'required unless grant_lifetime or revoke_lifetime is set' }],
    });
  }
  if (hasMinutes && (!Number.isInteger(c.minutes) || c.minutes === 0)) {
    throw new DomainError('VALIDATION_FAILED', 'minutes must be a non-zero integer', {
      errors: [{ field: 'minutes', message: 'must be a non-zero integer' }],
    });
  }
}

export function applyBulkChange(m: Membership, c: BulkChange, now: Instant, adjustmentId: string): { membership: Membership; adjustment: Adjustment } {
  validateBulkChange(c);
  let next = m;
  // Revoke first so that "revoke lifetime and add 60 minutes" leaves 60 minutes of timed access.
  if (c.revokeLifetime) next = { ...next, isLifetime: false };
  if (c.grantLifetime) next = { ...next, isLifetime: true };
  const minutes = c.minutes ?? null;
  if (minutes !== null) next = minutes > 0 ? extend(next, minutes, now) : shorten(next, -minutes, now);
  return {
    membership: next,
    adjustment: {
      id: adjustmentId,
      type: 'bulk',
      occurredAt: now,
      minutes,
      grantsLifetime: c.grantLifetime === true,
      revokesLifetime: c.revokeLifetime === true,
      licenseId: null,
      reason: c.reason ?? null,
    },
  };
}
