import { DomainError } from './errors.js';
import type { Instant } from './time.js';

// Crockford base32: no I, L, O, U, so codes read aloud and typed by hand survive.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const GROUPS = 6;
const GROUP_LENGTH = 5;
/** 30 symbols of 5 bits: 150 bits, above both the 100-bit code floor and the 128-bit secret floor. */
export const LICENSE_CODE_SYMBOLS = GROUPS * GROUP_LENGTH;
/** Random bytes needed to fill every symbol. */
export const LICENSE_CODE_BYTES = Math.ceil((LICENSE_CODE_SYMBOLS * 5) / 8);

/** Formats random bytes as XXXXX-XXXXX-XXXXX-XXXXX-XXXXX-XXXXX. */
export function formatLicenseCode(random: Uint8Array): string {
  if (random.length < LICENSE_CODE_BYTES) throw new Error(`need ${LICENSE_CODE_BYTES} random bytes`);
  let symbols = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of random) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && symbols.length < LICENSE_CODE_SYMBOLS) {
      bits -= 5;
      symbols += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  const groups: string[] = [];
  for (let i = 0; i < LICENSE_CODE_SYMBOLS; i += GROUP_LENGTH) groups.push(symbols.slice(i, i + GROUP_LENGTH));
  return groups.join('-');
}

/** The canonical form of a code as typed by a person: case-insensitive, dashes and spaces optional,
 * Crockford's look-alikes (I and L for 1, O for 0) accepted. Null when it cannot be a code. */
export function canonicalLicenseCode(input: string): string | null {
  if (input.length > 100) return null;
  const compact = input.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
  if (compact.length !== LICENSE_CODE_SYMBOLS) return null;
  for (const ch of compact) if (!ALPHABET.includes(ch)) return null;
  const groups: string[] = [];
  for (let i = 0; i < LICENSE_CODE_SYMBOLS; i += GROUP_LENGTH) groups.push(compact.slice(i, i + GROUP_LENGTH));
  return groups.join('-');
}

export interface LicenseState {
  id: string;
  minutes: number | null;
  usedAt: Instant | null;
  usedByUserId: string | null;
  banned: boolean;
}

export type LicenseUse = 'usable' | 'used' | 'banned';

/** Whether a license may be redeemed now. A ban outranks use: a banned code is reported as banned. */
export function licenseUse(l: LicenseState): LicenseUse {
  if (l.banned) return 'banned';
  if (l.usedAt !== null) return 'used';
  return 'usable';
}

/** Where a code is presented decides how a refusal reads: a form field at sign-up, a refused
 * credential at activation and login. Unknown and used stay apart, as codes are too random to
 * enumerate; a banned license is BANNED either way (docs/choices.md, "Licenses"). */
export type Redemption = 'sign_up' | 'activation' | 'login';

export function licenseRefusal(state: 'missing' | LicenseUse, redemption: Redemption): DomainError {
  if (state === 'banned') return new DomainError('BANNED', 'this license is banned');
  const asCredential = redemption !== 'sign_up';
  if (state === 'missing') {
    return new DomainError('LICENSE_INVALID', 'this license code is not valid', asCredential ? { refusedCredential: true } : { errors: [{ field: 'code', message: 'is not a valid license code' }] });
  }
  return new DomainError('LICENSE_USED', 'this license has already been used', asCredential ? { refusedCredential: true } : {});
}

/** Why a license code logs no one in: it is unknown, no one signed up with it yet, or a password
 * account redeemed it (used). Bans are decided later, once the account is known. */
export function licenseLoginRefusal(l: LicenseState | null): DomainError {
  if (l === null) return licenseRefusal('missing', 'login');
  if (l.usedAt === null) {
    return new DomainError('LICENSE_INVALID', 'no account has signed up with this license code yet', { refusedCredential: true });
  }
  return licenseRefusal('used', 'login');
}

/** Refuses a missing, banned or used license for the redemption; passes a usable one. */
export function assertRedeemable<T extends LicenseState>(l: T | null, redemption: Redemption): asserts l is T {
  if (l === null) throw licenseRefusal('missing', redemption);
  const use = licenseUse(l);
  if (use !== 'usable') throw licenseRefusal(use, redemption);
}

export function validateLicenseMinutes(minutes: number | null): void {
  if (minutes === null) return;
  if (!Number.isInteger(minutes) || minutes <= 0) {
    throw new DomainError('VALIDATION_FAILED', 'minutes must be a positive integer or null for lifetime', {
      errors: [{ field: 'minutes', message: 'must be a positive integer or null for lifetime' }],
    });
  }
}

/** What a new license grants: minutes (null: lifetime) or a plan, exactly one of the two given. */
export type LicenseTerms = { kind: 'minutes'; minutes: number | null } | { kind: 'plan'; planId: string };

export function licenseTerms(input: { minutes?: number | null; planId?: string }): LicenseTerms {
  const hasMinutes = input.minutes !== undefined;
  if (hasMinutes === (input.planId !== undefined)) {
    const field = hasMinutes ? 'plan_id' : 'minutes';
    throw new DomainError('VALIDATION_FAILED', 'give exactly one of minutes and plan_id', { errors: [{ field, message: 'give exactly one of minutes (null for lifetime) and plan_id' }] });
  }
  if (input.planId !== undefined) return { kind: 'plan', planId: input.planId };
  validateLicenseMinutes(input.minutes as number | null);
  return { kind: 'minutes', minutes: input.minutes as number | null };
}
