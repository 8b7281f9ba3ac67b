// The license file module as an attacker meets it (docs/signing.md, Offline license files): any
// text, any envelope, any claims are refused as a LicenseFileError, never crash the verifier; and
// nothing but the exact signed bytes verifies.
import { generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pinnedEd25519Keys } from '../../src/signing/ed25519.js';
import {
  LICENSE_FILE_BEGIN,
  LICENSE_FILE_END,
  type LicenseFileClaims,
  LicenseFileError,
  hardwareIdDigest,
  licenseFilePayload,
  licenseFileSigningText,
  licenseFileText,
  verifyLicenseFile,
} from '../../src/signing/license-file.js';
import { responseKeyId } from '../../src/signing/response-signature.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const publicBase64 = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('base64');
const kid = responseKeyId(publicBase64);
const keys = pinnedEd25519Keys(publicBase64, 'key');
const APP = '0b6f5a2e-8d1c-4f3a-9e7b-2c4d6f8a0b1c';
const NOW = 1_780_920_000;

const claims: LicenseFileClaims = {
  app: APP,
  sub: 'c4a7e2d1-3b5f-4c8e-9a1d-6f2e8b0c4d7a',
  username: 'alice',
  hwid_sha256: hardwareIdDigest(APP, 'hw-1'),
  membership: { is_lifetime: false, active_until: NOW + 86_400 },
  entitlements: ['export'],
  plan: { id: 'd2c1b0a9-8f7e-4d6c-9b5a-4e3f2a1b0c9d', name: 'Pro' },
  iat: NOW,
  exp: NOW + 3600,
  jti: '9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a',
};

/** A file of any payload text, signed by the pinned key: only the claims' shape can refuse it. */
function signedFile(payloadJson: string): string {
  const payload = Buffer.from(payloadJson, 'utf8').toString('base64url');
  return licenseFileText(kid, payload, sign(null, Buffer.from(licenseFileSigningText(kid, payload)), privateKey).toString('base64'));
}

const check = { keys, applicationId: APP, hardwareId: 'hw-1', now: NOW + 60 };
const verdict = (text: string): string => {
  try {
    verifyLicenseFile(text, check);
    return 'valid';
  } catch (error) {
    if (!(error instanceof LicenseFileError)) throw error;
    return error.code;
  }
};

describe('verifyLicenseFile', () => {
  it('verifies a well-formed file of the pinned key', () => {
    expect(verifyLicenseFile(signedFile(JSON.stringify(claims)), check)).toEqual(claims);
    expect(licenseFilePayload(claims)).toBe(Buffer.from(JSON.stringify(claims)).toString('base64url'));
  });

  it('refuses any text as MALFORMED, never with another error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.base64String({ maxLength: 300 }).map((b) => `${LICENSE_FILE_BEGIN}\n${b}\n${LICENSE_FILE_END}`),
        ),
        (text) => {
          expect(verdict(text)).toBe('MALFORMED');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses any envelope that is not as documented, never with another error', () => {
    const armoured = (envelope: unknown) => `${LICENSE_FILE_BEGIN}\n${Buffer.from(JSON.stringify(envelope) ?? 'null').toString('base64')}\n${LICENSE_FILE_END}\n`;
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ v: fc.jsonValue(), alg: fc.jsonValue(), kid: fc.jsonValue(), payload: fc.jsonValue(), sig: fc.jsonValue() })), (envelope) => {
        expect(['MALFORMED', 'SIGNATURE_INVALID']).toContain(verdict(armoured(envelope)));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses signed claims of any other shape as MALFORMED, and takes nothing unsigned', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...Object.keys(claims)), fc.jsonValue({ maxDepth: 2 })), (changes) => {
        const json = JSON.stringify({ ...claims, ...changes });
        const result = verdict(signedFile(json));
        if (result === 'valid') expect(verifyLicenseFile(signedFile(json), check)).toEqual(JSON.parse(json));
        else expect(['MALFORMED', 'OTHER_APPLICATION', 'OTHER_MACHINE', 'CLOCK_ROLLED_BACK', 'EXPIRED']).toContain(result);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a file with any one character of its base64, or of its envelope's base64url, changed", () => {
    const file = signedFile(JSON.stringify(claims));
    const body = file.split('\n')[1] as string;
    fc.assert(
      fc.property(fc.nat({ max: body.length - 1 }), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'), (at, ch) => {
        fc.pre(body[at] !== ch && body[at] !== '=');
        const changed = file.replace(body, body.slice(0, at) + ch + body.slice(at + 1));
        // Even a change of unused padding bits, which decodes to the same bytes, is refused: a file has one spelling.
        expect(verdict(changed)).not.toBe('valid');
      }),
      { numRuns: 300 },
    );
    const envelope = JSON.parse(Buffer.from(body, 'base64').toString('utf8')) as Record<string, string>;
    for (const field of ['payload', 'sig']) {
      const value = envelope[field] as string;
      fc.assert(
        fc.property(fc.nat({ max: value.length - 1 }), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), (at, ch) => {
          fc.pre(value[at] !== ch);
          const changed = { ...envelope, [field]: value.slice(0, at) + ch + value.slice(at + 1) };
          const text = `${LICENSE_FILE_BEGIN}\n${Buffer.from(JSON.stringify(changed)).toString('base64')}\n${LICENSE_FILE_END}\n`;
          expect(verdict(text), `${field}[${at}] = ${ch}`).not.toBe('valid');
        }),
        { numRuns: 200 },
      );
    }
  });
});
