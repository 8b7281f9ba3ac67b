// Per-user variables (docs/api.md, "User variables"): key/value pairs of one end user, kept by a
// client app. The limits are those docs/api.md states; the count is decided in the
// store's transaction, under the user's row lock, so parallel writes cannot pass it.
import { validationError } from './errors.js';

export const USER_VARIABLE_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
export const USER_VARIABLE_NAME_MAX = 64;
/** 64 KiB of text, counted in UTF-8 bytes (docs/choices.md, "Choices where the spec is silent"). */
export const USER_VARIABLE_VALUE_MAX_BYTES = 64 * 1024;
/** The default of the per-application setting max_user_variables. */
export const MAX_USER_VARIABLES_DEFAULT = 100;
/** The largest an owner may set: 1000 variables of 64 KiB is already 64 MiB for one user. */
export const MAX_USER_VARIABLES_CEILING = 1000;
/** What one user's values may hold together, in UTF-8 bytes: the count limit alone would let a user
 * keep max_user_variables values of 64 KiB each (docs/api.md, User variables). */
export const USER_VARIABLE_BYTES_MAX = 1024 * 1024;
/** Writes (sets and deletes) one user may make through the integration API in an hour. */
export const USER_VARIABLE_WRITES_PER_HOUR = 1000;

export const utf8Bytes = (value: string): number => Buffer.byteLength(value, 'utf8');

export function acceptUserVariableName(name: string): string {
  if (!USER_VARIABLE_NAME_PATTERN.test(name)) {
    throw validationError('name', `must be 1 to ${USER_VARIABLE_NAME_MAX} characters of A-Z, a-z, 0-9, _, . and -`);
  }
  return name;
}

export function acceptUserVariableValue(value: string): string {
  if (utf8Bytes(value) > USER_VARIABLE_VALUE_MAX_BYTES) {
    throw validationError('value', `must be at most ${USER_VARIABLE_VALUE_MAX_BYTES} bytes of UTF-8 text`);
  }
  return value;
}

/** Refuses a new variable once the user holds `max` of them; replacing one is always allowed. */
export function assertRoomForVariable(held: number, isNew: boolean, max: number): void {
  if (isNew && held >= max) throw validationError('name', `a user holds at most ${max} variables; delete one first`);
}

/** Refuses a value that would take the user's values past USER_VARIABLE_BYTES_MAX; `othersBytes`: the user's other values. */
export function assertRoomForBytes(othersBytes: number, valueBytes: number): void {
  if (othersBytes + valueBytes > USER_VARIABLE_BYTES_MAX) {
    throw validationError('value', `a user's variables hold at most ${USER_VARIABLE_BYTES_MAX} bytes together; ${USER_VARIABLE_BYTES_MAX - othersBytes} are left`);
  }
}
