import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LICENSE_CODE_BYTES,
  LICENSE_CODE_SYMBOLS,
  canonicalLicenseCode,
  formatLicenseCode,
  licenseUse,
  assertRedeemable,
  licenseRefusal,
  validateLicenseMinutes,
  type LicenseState,
} from '../../src/domain/license.js';
import { expectDomainError, expectValidationError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_PATTERN = /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){5}$/;

const randomBytes = fc.uint8Array({ minLength: LICENSE_CODE_BYTES, maxLength: LICENSE_CODE_BYTES });

/** The bit string (as '0'/'1') a code encodes, read back with an independent decoder. */
function codeBits(code: string): string {
  return [...code.replace(/-/g, '')].map((ch) => ALPHABET.indexOf(ch).toString(2).padStart(5, '0')).join('');
}
const byteBits = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');

/** Applies a person's typing habits to a canonical code. */
function humanise(code: string, lower: boolean[], dropDash: boolean, lookAlikes: number[]): string {
  let out = '';
  let i = 0;
  for (const ch of code) {
    if (ch === '-') {
      if (!dropDash) out += '-';
      continue;
    }
    let c = ch;
    const pick = lookAlikes[i % lookAlikes.length] ?? 0;
    if (c === '0' && pick % 2 === 1) c = 'O';
    if (c === '1' && pick % 3 === 1) c = 'I';
    if (c === '1' && pick % 3 === 2) c = 'L';
    if (lower[i % lower.length]) c = c.toLowerCase();
    out += c;
    i++;
  }
  return out;
}

describe('license code format', () => {
  it('carries at least 128 bits (and the 100-bit code floor)', () => {
    expect(LICENSE_CODE_SYMBOLS).toBe(30);
    expect(LICENSE_CODE_SYMBOLS * 5).toBeGreaterThanOrEqual(128);
    expect(LICENSE_CODE_BYTES * 8).toBeGreaterThanOrEqual(LICENSE_CODE_SYMBOLS * 5);
  });

  it('formats known bytes', () => {
    expect(formatLicenseCode(new Uint8Array(LICENSE_CODE_BYTES))).toBe('00000-00000-00000-00000-00000-00000');
    expect(formatLicenseCode(new Uint8Array(LICENSE_CODE_BYTES).fill(0xff))).toBe('ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ');
    // 0x08 = 00001000: the first symbol is 00001, the second starts with 000.
    const bytes = new Uint8Array(LICENSE_CODE_BYTES);
    bytes[0] = 0x08;
    expect(formatLicenseCode(bytes)).toBe('10000-00000-00000-00000-00000-00000');
  });

  it('refuses too few random bytes', () => {
    expect(() => formatLicenseCode(new Uint8Array(LICENSE_CODE_BYTES - 1))).toThrow();
    expect(() => formatLicenseCode(new Uint8Array(0))).toThrow();
  });

  it('is 6 groups of 5 Crockford symbols for any input', () => {
    fc.assert(
      fc.property(randomBytes, (bytes) => {
        expect(formatLicenseCode(bytes)).toMatch(CODE_PATTERN);
      }),
    );
  });

  it('encodes every one of the first 150 random bits, so distinct random inputs give distinct codes', () => {
    fc.assert(
      fc.property(randomBytes, (bytes) => {
        expect(codeBits(formatLicenseCode(bytes))).toBe(byteBits(bytes).slice(0, LICENSE_CODE_SYMBOLS * 5));
      }),
    );
  });

  it('distinct random inputs give distinct codes', () => {
    fc.assert(
      fc.property(randomBytes, randomBytes, (a, b) => {
        const sameBits = byteBits(a).slice(0, 150) === byteBits(b).slice(0, 150);
        fc.pre(!sameBits);
        expect(formatLicenseCode(a)).not.toBe(formatLicenseCode(b));
      }),
    );
  });

  it('flipping any single one of the first 150 bits changes the code', () => {
    fc.assert(
      fc.property(randomBytes, fc.integer({ min: 0, max: 149 }), (bytes, bit) => {
        const flipped = Uint8Array.from(bytes);
        flipped[bit >> 3] = (flipped[bit >> 3] ?? 0) ^ (0x80 >> (bit & 7));
        expect(formatLicenseCode(flipped)).not.toBe(formatLicenseCode(bytes));
      }),
    );
  });
});

describe('canonicalLicenseCode', () => {
  it('round-trips a formatted code', () => {
    fc.assert(
      fc.property(randomBytes, (bytes) => {
        const code = formatLicenseCode(bytes);
        expect(canonicalLicenseCode(code)).toBe(code);
      }),
    );
  });

  it('canonicalises lower-case, dash-less and look-alike variants to the same code', () => {
    fc.assert(
      fc.property(randomBytes, fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), fc.boolean(), fc.array(fc.nat(5), { minLength: 1, maxLength: 30 }), (bytes, lower, dropDash, lookAlikes) => {
        const code = formatLicenseCode(bytes);
        expect(canonicalLicenseCode(humanise(code, lower, dropDash, lookAlikes))).toBe(code);
      }),
    );
  });

  it('accepts the documented variants of a fixed code', () => {
    const code = '01ABC-DEFGH-JKMNP-QRSTV-WXYZ0-12345';
    expect(canonicalLicenseCode(code)).toBe(code);
    expect(canonicalLicenseCode(code.toLowerCase())).toBe(code);
    expect(canonicalLicenseCode(code.replace(/-/g, ''))).toBe(code);
    expect(canonicalLicenseCode('OIABC-DEFGH-JKMNP-QRSTV-WXYZO-L2345')).toBe(code);
    expect(canonicalLicenseCode('oiabc defgh jkmnp qrstv wxyzo l2345')).toBe(code);
    expect(canonicalLicenseCode('  01abc-defgh-jkmnp-qrstv-wxyz0-12345\n')).toBe(code);
  });

  it('rejects input that cannot be a code', () => {
    const code = '01ABC-DEFGH-JKMNP-QRSTV-WXYZ0-12345';
    expect(canonicalLicenseCode('')).toBeNull();
    expect(canonicalLicenseCode(code.slice(0, -1))).toBeNull(); // too short
    expect(canonicalLicenseCode(`${code}6`)).toBeNull(); // too long
    expect(canonicalLicenseCode(code.replace('A', 'U'))).toBeNull(); // U is not Crockford
    expect(canonicalLicenseCode(code.replace('A', '*'))).toBeNull();
    expect(canonicalLicenseCode(code.replace('A', 'é'))).toBeNull();
    expect(canonicalLicenseCode(`${'-'.repeat(80)}${code}`)).toBeNull(); // over 100 characters
    expect(canonicalLicenseCode('some-user-name')).toBeNull();
  });

  it('never throws and only returns canonical codes', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (s) => {
        const c = canonicalLicenseCode(s);
        if (c !== null) expect(c).toMatch(CODE_PATTERN);
      }),
    );
  });
});

describe('license use', () => {
  const fresh: LicenseState = { id: 'lic-1', minutes: 60, usedAt: null, usedByUserId: null, banned: false };

  it('a fresh license is usable', () => {
    expect(licenseUse(fresh)).toBe('usable');
  });

  it('assertRedeemable passes a usable license and refuses a missing, used or banned one', () => {
    expect(() => assertRedeemable(fresh, 'sign_up')).not.toThrow();
    expect(() => assertRedeemable(fresh, 'activation')).not.toThrow();
    const used = { ...fresh, usedAt: NOW, usedByUserId: 'user-1' };
    expectDomainError(() => assertRedeemable(null, 'sign_up'), 'LICENSE_INVALID');
    expectDomainError(() => assertRedeemable(used, 'sign_up'), 'LICENSE_USED');
    expectDomainError(() => assertRedeemable({ ...fresh, banned: true }, 'sign_up'), 'BANNED');
  });

  it('at activation unknown and used codes are told apart, as refused credentials; a ban is still BANNED', () => {
    const used = { ...fresh, usedAt: NOW, usedByUserId: 'user-1' };
    expectDomainError(() => assertRedeemable(null, 'activation'), 'LICENSE_INVALID');
    expectDomainError(() => assertRedeemable(used, 'activation'), 'LICENSE_USED');
    expect(licenseRefusal('missing', 'activation').details).toEqual({ refusedCredential: true });
    expect(licenseRefusal('used', 'activation').details).toEqual({ refusedCredential: true });
    expectDomainError(() => assertRedeemable({ ...used, banned: true }, 'activation'), 'BANNED');
  });

  it('at sign-up the code is a form field, not a refused credential', () => {
    expect(licenseRefusal('missing', 'sign_up').details.refusedCredential).toBeUndefined();
    expect(licenseRefusal('used', 'sign_up').details.refusedCredential).toBeUndefined();
  });

  it('a sign-up refusal of an unknown code names the field', () => {
    expect(licenseRefusal('missing', 'sign_up').details.errors).toEqual([{ field: 'code', message: 'is not a valid license code' }]);
  });

  it('a ban outranks use', () => {
    expect(licenseUse({ ...fresh, banned: true })).toBe('banned');
    expect(licenseUse({ ...fresh, banned: true, usedAt: NOW, usedByUserId: 'u' })).toBe('banned');
  });

  it('a lifetime license is usable like a timed one', () => {
    expect(licenseUse({ ...fresh, minutes: null })).toBe('usable');
  });
});

describe('validateLicenseMinutes', () => {
  it('accepts positive integers and null (lifetime)', () => {
    for (const m of [null, 1, 60, 525_600]) expect(() => validateLicenseMinutes(m)).not.toThrow();
  });

  it('rejects zero, negatives and non-integers', () => {
    for (const m of [0, -1, -60, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectValidationError(() => validateLicenseMinutes(m), 'minutes');
    }
  });
});
