// Keyed digests: remembered ones are the ones computed, past the memory's size too.
import { createHmac, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { createSecrets, deriveKey } from '../../src/adapters/crypto/secrets.js';

it('a digest is the HMAC under the derived key, asked once, again, after 12,000 others and for a text too long to keep', () => {
  const masterKey = randomBytes(32);
  const secrets = createSecrets(masterKey);
  const expected = (text: string) => createHmac('sha256', deriveKey(masterKey, 'digest')).update(text, 'utf8').digest('hex');
  const texts = Array.from({ length: 12_000 }, (_, i) => `gh_tok_${i}`);
  for (const text of texts) expect(secrets.digest(text)).toBe(expected(text));
  for (const text of [texts[0]!, texts[11_999]!, texts[5_000]!, 'x'.repeat(5_000), 'x'.repeat(5_000), '']) expect(secrets.digest(text)).toBe(expected(text));
  // Another key digests differently, remembered or not.
  const other = createSecrets(randomBytes(32));
  expect(other.digest(texts[0]!)).not.toBe(secrets.digest(texts[0]!));
});
