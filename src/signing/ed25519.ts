// Ed25519 public keys as Gatehouse shows them (base64 of the raw 32 bytes) and the check of a
// signature under one: shared by the response verifier and the license file verifier
// (docs/signing.md), so both read a pinned key the same way.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { responseKeyId } from './response-signature.js';

const PUBLIC_KEY_LENGTH = 32;

/** A pinned key (base64 of its raw 32 bytes) by its key id; RangeError, naming `option`, when it is not one. */
export function pinnedEd25519Key(publicKey: string, option: string): [string, KeyObject] {
  const raw = Buffer.from(publicKey, 'base64');
  if (raw.length !== PUBLIC_KEY_LENGTH) throw new RangeError(`${option}: each key must be the base64 of a raw 32-byte Ed25519 public key`);
  return [responseKeyId(publicKey), createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' })];
}

/** The pinned keys by key id; RangeError when there is none or one is not a key. */
export function pinnedEd25519Keys(publicKeys: string | readonly string[], option: string): Map<string, KeyObject> {
  const keys = new Map((typeof publicKeys === 'string' ? [publicKeys] : publicKeys).map((k) => pinnedEd25519Key(k, option)));
  if (keys.size === 0) throw new RangeError(`${option}: pin at least one key`);
  return keys;
}

/** Whether `signature` is the key's signature of `text`; a signature of the wrong length is simply not. */
export function ed25519Verifies(key: KeyObject, text: Uint8Array, signature: Uint8Array): boolean {
  try {
    return verify(null, text, key, signature);
  } catch {
    return false;
  }
}
