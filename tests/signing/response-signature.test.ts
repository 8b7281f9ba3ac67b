// The bytes of a response signature (docs/signing.md) and the server's signer, against the worked
// example the page gives: what the server computes must be what the page says.
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createResponseSigningKeys } from '../../src/adapters/crypto/response-signing-keys.js';
import { createSecrets } from '../../src/adapters/crypto/secrets.js';
import { bodyDigest, downloadBodyDigest, isWellFormedNonce, parseSignatureHeader, responseKeyId, responseSignatureBase, signatureHeader } from '../../src/signing/response-signature.js';

const docs = readFileSync(new URL('../../docs/signing.md', import.meta.url), 'utf8');
const secrets = createSecrets(randomBytes(32));
const keys = createResponseSigningKeys(secrets);

/** The example's key: its private half is the seed of 32 bytes of 0x07. */
const exampleKey = {
  publicKey: '6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=',
  privateKeySealed: secrets.seal(Buffer.alloc(32, 7).toString('base64url')),
};

const example = {
  timestamp: 1780920000,
  status: 200,
  method: 'GET',
  pathAndQuery: '/api/integration/app_context?lang=en',
  applicationId: '0b6f5a2e-8d1c-4f3a-9e7b-2c4d6f8a0b1c',
  nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD5',
  requestSignature: '',
  bodyDigest: bodyDigest('{"status":"ok"}'),
};

describe('the worked example of docs/signing.md', () => {
  it('a JSON answer: the text signed, the key id and the signature', async () => {
    const base = responseSignatureBase(example);
    expect(docs).toContain(JSON.stringify(base));
    expect(docs).toContain(example.bodyDigest);
    const keyId = responseKeyId(exampleKey.publicKey);
    expect(docs).toContain(`key id               ${keyId}`);
    const header = signatureHeader([{ keyId, signature: await keys.sign(exampleKey, base) }]);
    expect(docs).toContain(`x-signature: ${header}`);
  });

  it('a range of a download: signed by the file’s digest and the range', async () => {
    const contentSha256 = bodyDigest('a'.repeat(1000));
    const digest = downloadBodyDigest(contentSha256, 'bytes 0-99/1000');
    expect(docs).toContain(digest);
    const base = responseSignatureBase({ ...example, status: 206, pathAndQuery: '/api/integration/files/5d2c1b0a-9e8f-4a7b-8c6d-1e2f3a4b5c6d/download', bodyDigest: digest });
    expect(docs).toContain(await keys.sign(exampleKey, base));
  });
});

describe('response signing keys', () => {
  it('a new key signs what its public half verifies, and its id is 16 hex digits of the public key’s SHA-256', async () => {
    const key = keys.generate();
    const raw = Buffer.from(key.publicKey, 'base64');
    expect(raw).toHaveLength(32);
    expect(responseKeyId(key.publicKey)).toMatch(/^[0-9a-f]{16}$/);
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
    const signature = await keys.sign(key, 'text ✓');
    expect(verify(null, Buffer.from('text ✓', 'utf8'), publicKey, Buffer.from(signature, 'base64'))).toBe(true);
    expect(verify(null, Buffer.from('text', 'utf8'), publicKey, Buffer.from(signature, 'base64'))).toBe(false);
    // The private half is sealed, never stored as is.
    expect(key.privateKeySealed).not.toContain(secrets.open(key.privateKeySealed));
  });

  it('the header holds one entry per key, space-separated', () => {
    expect(
      signatureHeader([
        { keyId: 'aaaa', signature: 'c2ln' },
        { keyId: 'bbbb', signature: 'c2lnMg==' },
      ]),
    ).toBe('v1=aaaa:c2ln v1=bbbb:c2lnMg==');
    expect(downloadBodyDigest('ff', undefined)).toBe('ff:');
  });

  it('a client reads the entries back, passing over those of another version or shape', () => {
    const entries = [
      { keyId: '0123456789abcdef', signature: 'c2ln' },
      { keyId: 'fedcba9876543210', signature: 'c2lnMg==' },
    ];
    expect(parseSignatureHeader(signatureHeader(entries))).toEqual(entries);
    expect(parseSignatureHeader(`v2=0123456789abcdef:c2ln ${signatureHeader(entries.slice(1))} v1=short:c2ln v1=0123456789ABCDEF:c2ln`)).toEqual(entries.slice(1));
    expect(parseSignatureHeader('')).toEqual([]);
  });
});

describe('x-nonce', () => {
  it('is 16 to 64 characters of A-Z, a-z, 0-9, _ and -', () => {
    for (const ok of ['a'.repeat(16), 'Z'.repeat(64), 'Az09_-Az09_-Az09']) expect(isWellFormedNonce(ok), ok).toBe(true);
    for (const bad of ['', 'a'.repeat(15), 'a'.repeat(65), `${'a'.repeat(16)}\n`, 'a b c d e f g h i j', 'abcdefghijklmnop=', 'abcdefghijklmnoé']) {
      expect(isWellFormedNonce(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
