import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { ResponseSigningKeys } from '../../application/ports/response-signing-keys.js';
import type { Secrets } from '../../application/ports/secrets.js';
import type { LicenseFileGrant, ResponseSigningKey } from '../../application/records.js';
import { hardwareIdDigest, type LicenseFileClaims, licenseFilePayload, licenseFileSigningText, licenseFileText } from '../../signing/license-file.js';
import { responseKeyId } from '../../signing/response-signature.js';
import { createBatchedSigner } from './batched-signer.js';

/** Opened private keys kept at most; past it the cache starts over (a few applications sign most answers). */
const OPENED_KEYS_MAX = 1024;

/** Ed25519 response signing keys. The private half is sealed as its JWK `d` (the raw 32-byte seed,
 * base64url); each response opens it, so opened keys are kept by their sealed text. */
export function createResponseSigningKeys(secrets: Pick<Secrets, 'seal' | 'open'>): ResponseSigningKeys {
  const opened = new Map<string, KeyObject>();
  const privateKeyOf = (key: ResponseSigningKey): KeyObject => {
    const cached = opened.get(key.privateKeySealed);
    if (cached !== undefined) return cached;
    const x = Buffer.from(key.publicKey, 'base64').toString('base64url');
    const privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: secrets.open(key.privateKeySealed), x }, format: 'jwk' });
    if (opened.size >= OPENED_KEYS_MAX) opened.clear();
    opened.set(key.privateKeySealed, privateKey);
    return privateKey;
  };
  // Signed on worker threads, a turn's signatures at a time (batched-signer.ts): an Ed25519
  // signature costs more than the rest of an app_context answer's signing, and the event loop
  // serves the next request meanwhile.
  const signer = createBatchedSigner();
  const signText = (key: ResponseSigningKey, message: string) => signer.sign(privateKeyOf(key), message);
  return {
    generate() {
      const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
      if (jwk.d === undefined || jwk.x === undefined) throw new Error('node:crypto exported an Ed25519 key without its parts');
      return { publicKey: Buffer.from(jwk.x, 'base64url').toString('base64'), privateKeySealed: secrets.seal(jwk.d) };
    },
    sign: signText,
    async signLicenseFile(key, grant) {
      const kid = responseKeyId(key.publicKey);
      const payload = licenseFilePayload(licenseFileClaims(grant));
      return licenseFileText(kid, payload, await signText(key, licenseFileSigningText(kid, payload)));
    },
  };
}

const seconds = (instant: number) => Math.floor(instant / 1000);

/** The signed claims of a grant, in the order docs/signing.md lists them. */
function licenseFileClaims(g: LicenseFileGrant): LicenseFileClaims {
  return {
    app: g.applicationId,
    sub: g.userId,
    username: g.username,
    hwid_sha256: g.hardwareId === null ? null : hardwareIdDigest(g.applicationId, g.hardwareId),
    membership: {
      is_lifetime: g.membership.isLifetime,
      active_until: g.membership.isLifetime || g.membership.activeUntil === null ? null : seconds(g.membership.activeUntil),
    },
    entitlements: g.entitlements,
    plan: g.plan,
    iat: seconds(g.issuedAt),
    exp: seconds(g.expiresAt),
    jti: g.id,
  };
}
