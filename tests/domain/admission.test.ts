import { describe, expect, it } from 'vitest';
import { assertAdmitted } from '../../src/domain/admission.js';
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
});
