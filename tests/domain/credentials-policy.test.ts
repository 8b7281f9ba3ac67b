import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PASSWORD_MAX_CODE_POINTS,
  PASSWORD_MAX_WIRE_LENGTH,
  PASSWORD_MIN_CEILING,
  PASSWORD_MIN_FLOOR,
  USERNAME_MAX,
  USERNAME_MIN,
  acceptNewPassword,
  acceptUsername,
  presentedPassword,
  usernameKey,
  validateEmail,
  validatePasswordMinLength,
} from '../../src/domain/credentials-policy.js';
import { catchDomainError, expectValidationError } from './expect-domain-error.js';

const EMOJI = '\u{1F600}'; // one code point, two UTF-16 units

describe('acceptNewPassword', () => {
  it('returns the NFKC form of the password', () => {
    expect(acceptNewPassword('\uFB01\uFB01\uFB01\uFB01', 8)).toBe('fifififi'); // 'ﬁ' ligature → 'fi'
    expect(acceptNewPassword('Ｐａｓｓｗｏｒｄ', 8)).toBe('Password'); // full-width letters
    expect(acceptNewPassword('cafe\u0301-latte', 8)).toBe('caf\u00E9-latte'); // combining accent composed
    expect(acceptNewPassword('correct horse', 8)).toBe('correct horse');
  });

  it('measures length after normalisation', () => {
    // Four ligatures are 4 code points raw but 8 after NFKC: long enough.
    expect(() => acceptNewPassword('\uFB01'.repeat(4), 8)).not.toThrow();
    // 'e' + combining acute is 2 code points raw but 1 after NFKC.
    expectValidationError(() => acceptNewPassword('abcdefge\u0301', 9), 'password');
  });

  it('counts code points, not UTF-16 units (an emoji counts 1)', () => {
    expect(EMOJI.length).toBe(2);
    expect(acceptNewPassword(EMOJI.repeat(8), 8)).toBe(EMOJI.repeat(8));
    expectValidationError(() => acceptNewPassword(EMOJI.repeat(7), 8), 'password'); // 14 UTF-16 units, 7 code points
    expect(() => acceptNewPassword(EMOJI.repeat(PASSWORD_MAX_CODE_POINTS), 8)).not.toThrow();
    expectValidationError(() => acceptNewPassword(EMOJI.repeat(PASSWORD_MAX_CODE_POINTS + 1), 8), 'password');
  });

  it('enforces the application minimum', () => {
    expectValidationError(() => acceptNewPassword('a'.repeat(7), 8), 'password');
    expect(acceptNewPassword('a'.repeat(8), 8)).toBe('a'.repeat(8));
    expectValidationError(() => acceptNewPassword('a'.repeat(11), 12), 'password');
    expect(() => acceptNewPassword('a'.repeat(12), 12)).not.toThrow();
    expectValidationError(() => acceptNewPassword('a'.repeat(63), 64), 'password');
    expectValidationError(() => acceptNewPassword('', 8), 'password');
  });

  it('enforces the 256 code point maximum', () => {
    expect(PASSWORD_MAX_CODE_POINTS).toBe(256);
    expect(() => acceptNewPassword('a'.repeat(256), 8)).not.toThrow();
    const e = expectValidationError(() => acceptNewPassword('a'.repeat(257), 8), 'password');
    expect(e.message).toContain('256');
    // Ligatures that expand past 256 after normalisation are refused too.
    expectValidationError(() => acceptNewPassword('\uFB01'.repeat(129), 8), 'password');
  });

  it('the wire cap leaves room for 256 code points of 4 UTF-16 units', () => {
    expect(PASSWORD_MAX_WIRE_LENGTH).toBeGreaterThanOrEqual(PASSWORD_MAX_CODE_POINTS * 2);
  });

  it('names the field it was given', () => {
    expectValidationError(() => acceptNewPassword('short', 8, 'new_password'), 'new_password');
  });
});

describe('presentedPassword', () => {
  it('normalises to NFKC and has no minimum', () => {
    expect(presentedPassword('\uFB01')).toBe('fi');
    expect(presentedPassword('')).toBe('');
    expect(presentedPassword('x')).toBe('x');
  });

  it('accepts 256 code points and refuses more', () => {
    expect(presentedPassword(EMOJI.repeat(256))).toBe(EMOJI.repeat(256));
    expectValidationError(() => presentedPassword('a'.repeat(257)), 'password');
    expectValidationError(() => presentedPassword('a'.repeat(300), 'current_password'), 'current_password');
  });

  it('agrees with acceptNewPassword: whatever was accepted can be presented and gives the same string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 8, maxLength: 40 }), (raw) => {
        let accepted: string;
        try {
          accepted = acceptNewPassword(raw, 8);
        } catch {
          return;
        }
        expect(presentedPassword(raw)).toBe(accepted);
      }),
    );
  });
});

describe('validatePasswordMinLength', () => {
  it('accepts integers from 8 to 64', () => {
    expect(PASSWORD_MIN_FLOOR).toBe(8);
    expect(PASSWORD_MIN_CEILING).toBe(64);
    for (const n of [8, 12, 64]) expect(() => validatePasswordMinLength(n)).not.toThrow();
  });

  it('rejects values outside 8..64 and non-integers', () => {
    for (const n of [7, 0, -8, 65, 8.5, Number.NaN]) {
      expectValidationError(() => validatePasswordMinLength(n), 'password_min_length');
    }
  });
});

describe('acceptUsername', () => {
  it('keeps the NFKC, trimmed username and a lower-cased key', () => {
    expect(acceptUsername('Alice')).toEqual({ username: 'Alice', key: 'alice' });
    expect(acceptUsername('  bob.smith  ')).toEqual({ username: 'bob.smith', key: 'bob.smith' });
    expect(acceptUsername('Ｂｏｂ')).toEqual({ username: 'Bob', key: 'bob' }); // full-width
    expect(acceptUsername('user.name_1@x+y-z')).toEqual({ username: 'user.name_1@x+y-z', key: 'user.name_1@x+y-z' });
  });

  it('accepts letters and digits of any script', () => {
    expect(acceptUsername('Zoë').username).toBe('Zoë');
    expect(acceptUsername('日本語').username).toBe('日本語');
    expect(acceptUsername('ΑΘΗΝΑ').key).toBe('αθηνα');
    expect(acceptUsername('٣٣٣').username).toBe('٣٣٣');
  });

  it('enforces 3 to 64 code points after trimming', () => {
    expect(USERNAME_MIN).toBe(3);
    expect(USERNAME_MAX).toBe(64);
    expectValidationError(() => acceptUsername('ab'), 'username');
    expectValidationError(() => acceptUsername('  ab  '), 'username');
    expectValidationError(() => acceptUsername(''), 'username');
    expect(acceptUsername('abc').username).toBe('abc');
    expect(acceptUsername('a'.repeat(64)).username).toHaveLength(64);
    expectValidationError(() => acceptUsername('a'.repeat(65)), 'username');
  });

  it('refuses spaces, symbols, control, format and bidi characters', () => {
    for (const raw of ['a b', 'abc!', 'a/b/c', 'a\u0000bc', 'ab\u200Bc', 'ab\u202Ec', 'ab\nc', `abc${EMOJI}`, 'ab\tc']) {
      expectValidationError(() => acceptUsername(raw), 'username');
    }
  });

  it('usernames differing only in case share a key', () => {
    expect(acceptUsername('ALICE').key).toBe(acceptUsername('alice').key);
    expect(acceptUsername('AlIcE').key).toBe(acceptUsername('Ａｌｉｃｅ').key);
  });

  it('its key is always usernameKey of the raw input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 70 }), (raw) => {
        let accepted: { key: string } | null = null;
        try {
          accepted = acceptUsername(raw);
        } catch {
          expect(catchDomainError(() => acceptUsername(raw)).code).toBe('VALIDATION_FAILED');
        }
        if (accepted !== null) expect(accepted.key).toBe(usernameKey(raw));
      }),
    );
  });
});

describe('usernameKey', () => {
  it('normalises, trims and lower-cases', () => {
    expect(usernameKey('  ALICE ')).toBe('alice');
    expect(usernameKey('Ａｌｉｃｅ')).toBe('alice');
    expect(usernameKey('\uFB01sh')).toBe('fish');
  });

  it('never throws, even for input no username could have', () => {
    expect(usernameKey('')).toBe('');
    expect(usernameKey('a b!')).toBe('a b!');
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (s) => void usernameKey(s)));
  });
});

describe('validateEmail', () => {
  it('trims and lower-cases a valid address', () => {
    expect(validateEmail('  Owner@Example.COM ')).toBe('owner@example.com');
    expect(validateEmail('a@b')).toBe('a@b');
  });

  it('rejects what is not an address', () => {
    for (const raw of ['', 'no-at-sign', '@example.com', 'owner@', 'a@b@c', 'a b@c.d', 'a@b c']) {
      expectValidationError(() => validateEmail(raw), 'email');
    }
  });

  it('rejects addresses over 254 characters', () => {
    const local = 'a'.repeat(64);
    const ok = `${local}@${'d'.repeat(254 - 65)}`;
    expect(ok).toHaveLength(254);
    expect(validateEmail(ok)).toBe(ok);
    expectValidationError(() => validateEmail(`${ok}x`), 'email');
  });
});
