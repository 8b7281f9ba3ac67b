import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Secrets } from '../../application/ports/secrets.js';
import { sameText } from './same-text.js';

/** Derives a purpose-bound 32-byte key from the master key, so no two uses share one. */
export function deriveKey(masterKey: Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `gatehouse:${purpose}`, 32));
}

const SEAL_VERSION = 'v1';
/** Digests remembered: every integration request digests its API secret and session token, and an HMAC
 * costs far more than a lookup. A remembered digest is the one computed; longer texts are not kept, so
 * memory stays small (docs/security.md, "Keyed digests"). */
const DIGEST_MEMO_SIZE = 10_000;
const DIGEST_MEMO_MAX_CHARS = 1_024;

export function createSecrets(masterKey: Uint8Array): Secrets {
  if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  // Digests are keyed: a database dump alone cannot even test guesses of a secret.
  const digestKey = deriveKey(masterKey, 'digest');
  const sealKey = deriveKey(masterKey, 'seal');
  const csrfKey = deriveKey(masterKey, 'console-csrf');
  const digests = new Map<string, string>();

  return {
    issue: (prefix) => prefix + randomBytes(24).toString('base64url'),
    randomBytes: (n) => randomBytes(n),
    digest(secret) {
      const known = digests.get(secret);
      if (known !== undefined) return known;
      const digest = createHmac('sha256', digestKey).update(secret, 'utf8').digest('hex');
      if (secret.length <= DIGEST_MEMO_MAX_CHARS) {
        if (digests.size >= DIGEST_MEMO_SIZE) digests.delete(digests.keys().next().value as string);
        digests.set(secret, digest);
      }
      return digest;
    },
    sameDigest: sameText,
    csrfToken: (consoleToken) => createHmac('sha256', csrfKey).update(consoleToken, 'utf8').digest('base64url'),
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${SEAL_VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed) {
      const [version, payload] = sealed.split('.');
      if (version !== SEAL_VERSION || payload === undefined) throw new Error('unknown sealed format');
      const raw = Buffer.from(payload, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
