import { describe, expect, it } from 'vitest';
import { acceptUserVariableName, acceptUserVariableValue, assertRoomForVariable } from '../../src/domain/user-variables.js';
import { expectDomainError } from './expect-domain-error.js';

/** The field a VALIDATION_FAILED from `f` names. */
const field = (f: () => unknown) => expectDomainError(f, 'VALIDATION_FAILED').details.errors?.[0]?.field;

describe('user variables', () => {
  it('names are 1 to 64 characters of A-Z, a-z, 0-9, _, . and -', () => {
    for (const ok of ['a', 'A.b-c_9', 'x'.repeat(64)]) expect(acceptUserVariableName(ok)).toBe(ok);
    for (const bad of ['', 'x'.repeat(65), 'a b', 'ä', 'a/b', 'a\n']) expect(field(() => acceptUserVariableName(bad))).toBe('name');
  });

  it('values are up to 64 KiB of UTF-8', () => {
    expect(acceptUserVariableValue('x'.repeat(65_536))).toHaveLength(65_536);
    expect(field(() => acceptUserVariableValue('x'.repeat(65_537)))).toBe('value');
    // 2 bytes each: 32768 fit, one more does not.
    expect(acceptUserVariableValue('é'.repeat(32_768))).toHaveLength(32_768);
    expect(field(() => acceptUserVariableValue('é'.repeat(32_769)))).toBe('value');
  });

  it('a new variable needs room; a replaced one does not', () => {
    expect(() => assertRoomForVariable(99, true, 100)).not.toThrow();
    expect(field(() => assertRoomForVariable(100, true, 100))).toBe('name');
    expect(() => assertRoomForVariable(100, false, 100)).not.toThrow();
    expect(field(() => assertRoomForVariable(0, true, 0))).toBe('name');
  });
});
