import { describe, expect, it } from 'vitest';
import { DomainError, errorCodes, isDomainError, validationError } from '../../src/domain/errors.js';

describe('errors', () => {
  it('has a stable code for every failure decisions.md lists', () => {
    for (const code of [
      'INVALID_CREDENTIALS',
      'INVALID_API_CREDENTIALS',
      'LOGIN_REQUIRED',
      'MEMBERSHIP_INACTIVE',
      'BANNED',
      'TIMED_OUT',
      'DEVICE_REQUIRED',
      'DEVICE_LIMIT_REACHED',
      'SESSION_LIMIT_REACHED',
      'SESSION_EXPIRED',
      'LEGACY_AUTH_DISABLED',
      'USERNAME_TAKEN',
      'LICENSE_INVALID',
      'LICENSE_USED',
      'FILE_NOT_FOUND',
      'FILE_NAME_TAKEN',
      'VALIDATION_FAILED',
      'PAYLOAD_TOO_LARGE',
      'RATE_LIMITED',
    ] as const) {
      expect(errorCodes).toContain(code);
    }
    expect(new Set(errorCodes).size).toBe(errorCodes.length);
  });

  it('DomainError carries code, message and details', () => {
    const e = new DomainError('TIMED_OUT', 'timed out', { timedOutUntil: 5, reason: 'r' });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('DomainError');
    expect(e.code).toBe('TIMED_OUT');
    expect(e.message).toBe('timed out');
    expect(e.details).toEqual({ timedOutUntil: 5, reason: 'r' });
    expect(new DomainError('BANNED', 'x').details).toEqual({});
  });

  it('isDomainError tells domain errors apart', () => {
    expect(isDomainError(new DomainError('BANNED', 'x'))).toBe(true);
    expect(isDomainError(new Error('x'))).toBe(false);
    expect(isDomainError({ code: 'BANNED' })).toBe(false);
  });

  it('validationError names the field', () => {
    const e = validationError('username', 'is too short');
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toBe('username: is too short');
    expect(e.details.errors).toEqual([{ field: 'username', message: 'is too short' }]);
  });
});
