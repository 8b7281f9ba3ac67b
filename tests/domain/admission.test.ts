import { describe, expect, it } from 'vitest';
import { admissionCaps, assertAdmitted } from '../../src/domain/admission.js';
import { expectDomainError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const active = { timeout: null, membership: { activeUntil: NOW + 1, isLifetime: false } };

describe('assertAdmitted', () => {
  it('returns the user when it exists, is not banned, not timed out and active', () => {
    expect(assertAdmitted(active, false, NOW)).toBe(active);
    const lifetime = { timeout: { until: NOW, reason: null }, membership: { activeUntil: null, isLifetime: true } };
    expect(assertAdmitted(lifetime, false, NOW)).toBe(lifetime);
  });

  it('refuses a user that is gone as invalid credentials', () => {
    expectDomainError(() => assertAdmitted(null, false, NOW), 'INVALID_CREDENTIALS');
  });

  it('refuses in order: ban, then timeout, then membership', () => {
    const timedOutAndLapsed = { timeout: { until: NOW + 1, reason: 'spam' }, membership: { activeUntil: NOW, isLifetime: false } };
    expectDomainError(() => assertAdmitted(timedOutAndLapsed, true, NOW), 'BANNED');
    expectDomainError(() => assertAdmitted(timedOutAndLapsed, false, NOW), 'TIMED_OUT');
    expectDomainError(() => assertAdmitted({ ...timedOutAndLapsed, timeout: null }, false, NOW), 'MEMBERSHIP_INACTIVE');
  });

  it("admits through the base plan's grace, and not at its end", () => {
    const lapsed = { timeout: null, membership: { activeUntil: NOW - 59 * 60_000, isLifetime: false } };
    expect(assertAdmitted(lapsed, false, NOW, 60)).toBe(lapsed);
    expectDomainError(() => assertAdmitted(lapsed, false, NOW + 60_000, 60), 'MEMBERSHIP_INACTIVE');
    expectDomainError(() => assertAdmitted(lapsed, false, NOW), 'MEMBERSHIP_INACTIVE');
  });
});

describe('admissionCaps', () => {
  it('are the effective caps: override, then plan, then the defaults', () => {
    const defaults = { defaultAllowedDevices: 1, defaultAllowedSessions: 2 };
    expect(admissionCaps({ allowedDevices: null, allowedSessions: 4 }, { maxDevices: 0, maxSessions: 9 }, defaults)).toEqual({ devices: 0, sessions: 4 });
    expect(admissionCaps({ allowedDevices: null, allowedSessions: null }, null, defaults)).toEqual({ devices: 1, sessions: 2 });
  });
});
