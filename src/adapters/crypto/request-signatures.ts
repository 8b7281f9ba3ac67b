import { sameText } from './same-text.js';
import type { RequestSignatures } from '../../application/ports/request-signatures.js';
import type { Secrets } from '../../application/ports/secrets.js';
import { requestSignatureHeader } from '../../signing/request-signature.js';

/** Opened keys kept at most; past it the cache starts over (a few applications sign most requests). */
const OPENED_KEYS_MAX = 1024;

/** Checks request HMACs (src/signing/request-signature.ts makes them) under keys sealed by the master
 * key; each signed request opens its key, so opened keys are kept by their sealed text. */
export function createRequestSignatures(secrets: Pick<Secrets, 'open'>): RequestSignatures {
  const opened = new Map<string, string>();
  const keyOf = (sealed: string): string => {
    const cached = opened.get(sealed);
    if (cached !== undefined) return cached;
    const key = secrets.open(sealed);
    if (opened.size >= OPENED_KEYS_MAX) opened.clear();
    opened.set(sealed, key);
    return key;
  };
  return {
    matches(sealedKey, base, signature) {
      return sameText(signature, requestSignatureHeader(keyOf(sealedKey), base));
    },
  };
}
