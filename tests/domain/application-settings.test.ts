import { describe, expect, it } from 'vitest';
import {
  LIMIT_MAX,
  SESSION_TTL_MAX,
  SESSION_TTL_MIN,
  SIGNATURE_WINDOW_MAX,
  SIGNATURE_WINDOW_MIN,
  LICENSE_FILE_TTL_MAX,
  LICENSE_FILE_TTL_MIN,
  EXPIRY_NOTICE_DAYS_MAX,
  defaultSettings,
  validateName,
  validateSettings,
  validateUserLimits,
} from '../../src/domain/application-settings.js';
import { expectValidationError } from './expect-domain-error.js';

describe('defaultSettings', () => {
  it('match the product decisions', () => {
    expect(defaultSettings).toEqual({
      anonymousAccess: false,
      deviceAuth: true,
      legacyAuth: false,
      tokenAuth: true,
      sessionTtlSeconds: 300,
      defaultAllowedDevices: 1,
      defaultAllowedSessions: 1,
      banPropagation: true,
      banPropagationToAddresses: false,
      propagatedIpBanHours: 24,
      passwordMinLength: 8,
      responseSigning: true,
      requestSigning: false,
      signatureWindowSeconds: 10,
      licenseFileTtlMinutes: 20_160,
      maxUserVariables: 100,
      deviceResetCooldownHours: null,
      signUpsPerHour: null,
      expiryNoticeDays: 7,
      trialPlanId: null,
      heartbeatSeconds: null,
      refreshTtlDays: 30,
    });
  });

  it('are themselves valid', () => {
    expect(validateSettings(defaultSettings)).toEqual(defaultSettings);
  });
});

describe('validateSettings', () => {
  const withSetting = (patch: Partial<typeof defaultSettings>) => ({ ...defaultSettings, ...patch });

  it('session_ttl_seconds from 30 seconds to 30 days', () => {
    expect(SESSION_TTL_MIN).toBe(30);
    expect(SESSION_TTL_MAX).toBe(30 * 24 * 3600);
    expect(() => validateSettings(withSetting({ sessionTtlSeconds: SESSION_TTL_MIN }))).not.toThrow();
    expect(() => validateSettings(withSetting({ sessionTtlSeconds: SESSION_TTL_MAX }))).not.toThrow();
    for (const v of [SESSION_TTL_MIN - 1, SESSION_TTL_MAX + 1, 0, -300, 300.5, Number.NaN]) {
      expectValidationError(() => validateSettings(withSetting({ sessionTtlSeconds: v })), 'session_ttl_seconds');
    }
  });

  it('signature_window_seconds from 5 to 300', () => {
    expect([SIGNATURE_WINDOW_MIN, SIGNATURE_WINDOW_MAX]).toEqual([5, 300]);
    for (const v of [5, 10, 300]) expect(() => validateSettings(withSetting({ signatureWindowSeconds: v }))).not.toThrow();
    for (const v of [4, 301, 0, -10, 7.5]) {
      expectValidationError(() => validateSettings(withSetting({ signatureWindowSeconds: v })), 'signature_window_seconds');
    }
  });

  it('license_file_ttl_minutes from an hour to a year', () => {
    expect([LICENSE_FILE_TTL_MIN, LICENSE_FILE_TTL_MAX]).toEqual([60, 365 * 24 * 60]);
    for (const v of [60, 20_160, 525_600]) expect(() => validateSettings(withSetting({ licenseFileTtlMinutes: v }))).not.toThrow();
    for (const v of [59, 525_601, 0, -60, 90.5]) {
      expectValidationError(() => validateSettings(withSetting({ licenseFileTtlMinutes: v })), 'license_file_ttl_minutes');
    }
  });

  it('expiry_notice_days from 0 (no notice) to 90', () => {
    expect(EXPIRY_NOTICE_DAYS_MAX).toBe(90);
    for (const v of [0, 7, 90]) expect(() => validateSettings(withSetting({ expiryNoticeDays: v }))).not.toThrow();
    for (const v of [-1, 91, 1.5]) {
      expectValidationError(() => validateSettings(withSetting({ expiryNoticeDays: v })), 'expiry_notice_days');
    }
  });

  it('heartbeat_seconds null (off) or from 30 to 86,400; refresh_ttl_days null (none) or from 1 to 365', () => {
    for (const v of [null, 30, 300, 86_400]) expect(() => validateSettings(withSetting({ heartbeatSeconds: v }))).not.toThrow();
    for (const v of [0, 29, 86_401, 60.5]) expectValidationError(() => validateSettings(withSetting({ heartbeatSeconds: v })), 'heartbeat_seconds');
    for (const v of [null, 1, 30, 365]) expect(() => validateSettings(withSetting({ refreshTtlDays: v }))).not.toThrow();
    for (const v of [0, 366, 1.5]) expectValidationError(() => validateSettings(withSetting({ refreshTtlDays: v })), 'refresh_ttl_days');
  });

  it('default_allowed_devices from 0 to the limit', () => {
    expect(() => validateSettings(withSetting({ defaultAllowedDevices: 0 }))).not.toThrow();
    expect(() => validateSettings(withSetting({ defaultAllowedDevices: LIMIT_MAX }))).not.toThrow();
    for (const v of [-1, LIMIT_MAX + 1, 1.5]) {
      expectValidationError(() => validateSettings(withSetting({ defaultAllowedDevices: v })), 'default_allowed_devices');
    }
  });

  it('default_allowed_sessions from 1 to the limit', () => {
    expect(() => validateSettings(withSetting({ defaultAllowedSessions: 1 }))).not.toThrow();
    expect(() => validateSettings(withSetting({ defaultAllowedSessions: LIMIT_MAX }))).not.toThrow();
    for (const v of [0, -1, LIMIT_MAX + 1, 2.5]) {
      expectValidationError(() => validateSettings(withSetting({ defaultAllowedSessions: v })), 'default_allowed_sessions');
    }
  });

  it('password_min_length from 8 to 64', () => {
    expect(() => validateSettings(withSetting({ passwordMinLength: 64 }))).not.toThrow();
    expectValidationError(() => validateSettings(withSetting({ passwordMinLength: 7 })), 'password_min_length');
    expectValidationError(() => validateSettings(withSetting({ passwordMinLength: 65 })), 'password_min_length');
  });

  it('boolean switches are free', () => {
    expect(validateSettings(withSetting({ propagatedIpBanHours: null })).propagatedIpBanHours).toBeNull();
    for (const v of [1, 8760]) expect(() => validateSettings(withSetting({ propagatedIpBanHours: v }))).not.toThrow();
    for (const v of [0, -1, 8761, 1.5]) expectValidationError(() => validateSettings(withSetting({ propagatedIpBanHours: v })), 'propagated_ip_ban_hours');
    const flipped = withSetting({ anonymousAccess: true, deviceAuth: false, legacyAuth: true, tokenAuth: false, banPropagation: false });
    expect(validateSettings(flipped)).toEqual(flipped);
  });
});

describe('validateUserLimits', () => {
  it('accepts absent limits and limits in range', () => {
    expect(() => validateUserLimits({})).not.toThrow();
    expect(() => validateUserLimits({ allowedDevices: 0, allowedSessions: 1 })).not.toThrow();
    expect(() => validateUserLimits({ allowedDevices: LIMIT_MAX, allowedSessions: LIMIT_MAX })).not.toThrow();
  });

  it('rejects devices outside 0..limit', () => {
    for (const v of [-1, LIMIT_MAX + 1, 0.5]) {
      expectValidationError(() => validateUserLimits({ allowedDevices: v }), 'allowed_number_of_devices');
    }
  });

  it('rejects sessions outside 1..limit', () => {
    for (const v of [0, -1, LIMIT_MAX + 1, 1.5]) {
      expectValidationError(() => validateUserLimits({ allowedSessions: v }), 'allowed_number_of_simultaneous_sessions');
    }
  });
});

describe('validateName', () => {
  it('trims and checks 1..max characters', () => {
    expect(validateName('name', '  My App  ', 100)).toBe('My App');
    expect(validateName('name', 'x'.repeat(10), 10)).toBe('x'.repeat(10));
    expectValidationError(() => validateName('name', '   ', 100), 'name');
    expectValidationError(() => validateName('title', 'x'.repeat(11), 10), 'title');
  });
});
