import { describe, expect, it } from 'vitest';
import { assertNotTimedOut, isTimedOut, validateTimeout } from '../../src/domain/timeout.js';
import { expectDomainError, expectValidationError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const HOUR = 3_600_000;

describe('isTimedOut', () => {
  it('no timeout: not timed out', () => {
    expect(isTimedOut(null, NOW)).toBe(false);
  });

  it('timed out strictly before until; free at and after until', () => {
    const t = { until: NOW, reason: null };
    expect(isTimedOut(t, NOW - 1)).toBe(true);
    expect(isTimedOut(t, NOW)).toBe(false);
    expect(isTimedOut(t, NOW + 1)).toBe(false);
  });
});

describe('assertNotTimedOut', () => {
  it('passes with no timeout or an ended one', () => {
    expect(() => assertNotTimedOut(null, NOW)).not.toThrow();
    expect(() => assertNotTimedOut({ until: NOW, reason: 'spam' }, NOW)).not.toThrow();
    expect(() => assertNotTimedOut({ until: NOW - HOUR, reason: null }, NOW)).not.toThrow();
  });

  it('throws TIMED_OUT with timedOutUntil and reason while running', () => {
    const e = expectDomainError(() => assertNotTimedOut({ until: NOW + HOUR, reason: 'spamming chat' }, NOW), 'TIMED_OUT');
    expect(e.details).toEqual({ timedOutUntil: NOW + HOUR, reason: 'spamming chat' });
  });

  it('throws TIMED_OUT with a null reason when none was given', () => {
    const e = expectDomainError(() => assertNotTimedOut({ until: NOW + 1, reason: null }, NOW), 'TIMED_OUT');
    expect(e.details.timedOutUntil).toBe(NOW + 1);
    expect(e.details.reason).toBeNull();
  });

  it('set, runs, ends by itself', () => {
    const t = { until: NOW + HOUR, reason: 'cool down' };
    expectDomainError(() => assertNotTimedOut(t, NOW), 'TIMED_OUT');
    expectDomainError(() => assertNotTimedOut(t, NOW + HOUR - 1), 'TIMED_OUT');
    expect(() => assertNotTimedOut(t, NOW + HOUR)).not.toThrow();
  });
});

describe('validateTimeout', () => {
  it('accepts an end in the future', () => {
    expect(() => validateTimeout(NOW + 1, NOW)).not.toThrow();
    expect(() => validateTimeout(NOW + 365 * 24 * HOUR, NOW)).not.toThrow();
  });

  it('rejects an end now or in the past', () => {
    expectValidationError(() => validateTimeout(NOW, NOW), 'until');
    expectValidationError(() => validateTimeout(NOW - 1, NOW), 'until');
  });

  it('rejects a non-number end', () => {
    expectValidationError(() => validateTimeout(Number.NaN, NOW), 'until');
  });
});
