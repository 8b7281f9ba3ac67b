import { validationError } from './errors.js';
import { canonicalLicenseCode } from './license.js';

export const PASSWORD_MAX_CODE_POINTS = 256;
export const PASSWORD_MIN_FLOOR = 8;
export const PASSWORD_MIN_CEILING = 64;
/** Wire-level cap checked by schemas before any normalisation: 256 code points of 4 UTF-16 units. */
export const PASSWORD_MAX_WIRE_LENGTH = 1024;

const codePoints = (s: string) => [...s].length;

/** Normalises a new password to NFKC and checks its length in code points, before any hashing, so an
 * oversized password costs nothing. */
export function acceptNewPassword(raw: string, minLength: number, field = 'password'): string {
  const normalized = raw.normalize('NFKC');
  const length = codePoints(normalized);
  if (length < minLength) throw validationError(field, `must be at least ${minLength} characters`);
  if (length > PASSWORD_MAX_CODE_POINTS) throw validationError(field, `must be at most ${PASSWORD_MAX_CODE_POINTS} characters`);
  return normalized;
}

/** Normalises a presented password. One too long to have ever been accepted is refused before
 * hashing, as the 422 of an oversized password is no oracle. */
export function presentedPassword(raw: string, field = 'password'): string {
  const normalized = raw.normalize('NFKC');
  if (codePoints(normalized) > PASSWORD_MAX_CODE_POINTS) {
    throw validationError(field, `must be at most ${PASSWORD_MAX_CODE_POINTS} characters`);
  }
  return normalized;
}

export function validatePasswordMinLength(n: number): void {
  if (!Number.isInteger(n) || n < PASSWORD_MIN_FLOOR || n > PASSWORD_MIN_CEILING) {
    throw validationError('password_min_length', `must be an integer from ${PASSWORD_MIN_FLOOR} to ${PASSWORD_MIN_CEILING}`);
  }
}

export const USERNAME_MAX = 64;
export const USERNAME_MIN = 3;
// Letters, digits and a few separators: no control, format or bidi characters that make two
// names look alike in a dashboard.
const USERNAME_PATTERN = /^[\p{L}\p{N}._@+-]+$/u;

/** A username as stored (NFKC, trimmed) and its uniqueness key (case-folded). */
export function acceptUsername(raw: string): { username: string; key: string } {
  const username = raw.normalize('NFKC').trim();
  const length = codePoints(username);
  if (length < USERNAME_MIN || length > USERNAME_MAX) {
    throw validationError('username', `must be ${USERNAME_MIN} to ${USERNAME_MAX} characters`);
  }
  if (!USERNAME_PATTERN.test(username)) {
    throw validationError('username', 'may contain letters, digits and . _ @ + - only');
  }
  // A username that reads as a license code would make "username or license code" lookups ambiguous.
  if (canonicalLicenseCode(username) !== null) throw validationError('username', 'must not look like a license code');
  return { username, key: usernameKey(username) };
}

/** The lookup key of a presented username; never throws, as a login must not reveal the rules. */
export const usernameKey = (raw: string): string => raw.normalize('NFKC').trim().toLowerCase();

export function validateEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email)) throw validationError('email', 'must be an email address');
  return email;
}
