import { describe, expect, it } from 'vitest';
import { nextDeviceResetAt, planDeviceReset, resetCooldownHours } from '../../src/domain/device-reset.js';
import { catchDomainError as refusal } from './expect-domain-error.js';

const HOUR = 3_600_000;
const T = Date.parse('2026-06-08T12:00:00.000Z');

describe('device reset', () => {
  it('is off while the setting is null', () => {
    expect(refusal(() => resetCooldownHours(null)).code).toBe('RESET_DISABLED');
    expect(resetCooldownHours(24)).toBe(24);
  });

  it('a first reset is always allowed; the next one after the cooldown', () => {
    expect(planDeviceReset(null, 24, T)).toEqual({ nextResetAt: T + 24 * HOUR });
    expect(planDeviceReset(T, 24, T + 24 * HOUR)).toEqual({ nextResetAt: T + 48 * HOUR });
  });

  it('inside the cooldown: RESET_COOLDOWN with when, and whole seconds to wait (at least 1)', () => {
    const e = refusal(() => planDeviceReset(T, 2, T + HOUR));
    expect(e.code).toBe('RESET_COOLDOWN');
    expect(e.details).toEqual({ nextResetAt: T + 2 * HOUR, retryAfterSeconds: 3600 });
    expect(refusal(() => planDeviceReset(T, 2, T + 2 * HOUR - 1)).details.retryAfterSeconds).toBe(1);
    expect(refusal(() => planDeviceReset(T, 2, T + 2 * HOUR - 1500)).details.retryAfterSeconds).toBe(2);
  });

  it('the next allowed reset, as the user page shows it', () => {
    expect(nextDeviceResetAt(null, 24)).toBeNull();
    expect(nextDeviceResetAt(T, null)).toBeNull();
    expect(nextDeviceResetAt(T, 1)).toBe(T + HOUR);
  });
});
