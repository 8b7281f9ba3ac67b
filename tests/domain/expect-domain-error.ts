import { expect } from 'vitest';
import { DomainError, type ErrorCode } from '../../src/domain/errors.js';

/** Runs `fn`, which must throw a DomainError, and returns that error. */
export function catchDomainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}

/** Asserts that `fn` throws a DomainError with `code` and returns it for further checks. */
export function expectDomainError(fn: () => unknown, code: ErrorCode): DomainError {
  const e = catchDomainError(fn);
  expect(e.code).toBe(code);
  return e;
}

/** Asserts a VALIDATION_FAILED naming `field` in its details. */
export function expectValidationError(fn: () => unknown, field: string): DomainError {
  const e = expectDomainError(fn, 'VALIDATION_FAILED');
  expect(e.details.errors?.map((x) => x.field)).toContain(field);
  return e;
}
