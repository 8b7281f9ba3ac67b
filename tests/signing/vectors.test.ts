// docs/signing-vectors.json against the server's code: the bytes each case signs as
// src/signing builds them, each verdict as a node:crypto verifier and the SDK's verifier reach it,
// each valid signature as the server's signer makes it again, and the file as its generator
// (scripts/signing-vectors.mjs, written apart from src/signing) writes it.
import { createPrivateKey, createPublicKey, randomBytes, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRequestSignatures } from '../../src/adapters/crypto/request-signatures.js';
import { createResponseSigningKeys } from '../../src/adapters/crypto/response-signing-keys.js';
import { createSecrets } from '../../src/adapters/crypto/secrets.js';
import { createResponseVerifier } from '../../src/client/response-verifier.js';
import { pinnedEd25519Keys } from '../../src/signing/ed25519.js';
import { type LicenseFileClaims, LicenseFileError, licenseFileSigningText, readLicenseFile, verifyLicenseFile } from '../../src/signing/license-file.js';
import { credentialsDigest, requestBodyDigest, requestSignatureBase, requestSignatureHeader } from '../../src/signing/request-signature.js';
import { bodyDigest, downloadBodyDigest, parseSignatureHeader, responseKeyId, responseSignatureBase, sha256Hex } from '../../src/signing/response-signature.js';

interface Key {
  private_key_seed_base64: string;
  private_key_pkcs8_der_base64: string;
  public_key_base64: string;
  key_id: string;
}

interface Verdict {
  valid: boolean;
  failure?: string;
  reason?: string;
}

interface ResponseCase {
  name: string;
  pinned_keys: string[];
  request: { method: string; path_and_query: string; x_nonce: string; x_signature: string };
  download: boolean;
  response: { status: number; headers: Record<string, string>; body: string };
  signed_text: string | null;
  expected: Verdict;
}

interface RequestCase {
  name: string;
  request: { x_timestamp: string; x_nonce: string; method: string; path_and_query: string; x_api_key: string; credential_headers: Record<string, string>; body: string };
  credentials_digest: string;
  body_digest: string;
  signed_text: string;
  x_signature: string;
  expected: Verdict;
}

interface LicenseFileCase {
  name: string;
  pinned_keys: string[];
  application_id: string;
  hardware_id: string | null;
  now: number;
  newest_signed_time: number;
  license_file: string;
  signed_text: string;
  claims: LicenseFileClaims;
  expected: Verdict;
}

interface Vectors {
  application_id: string;
  keys: { response_signing: Record<string, Key>; request_signing_key_base64: string };
  response_cases: ResponseCase[];
  request_cases: RequestCase[];
  license_file_cases: LicenseFileCase[];
}

const VECTORS_URL = new URL('../../docs/signing-vectors.json', import.meta.url);
const text = readFileSync(VECTORS_URL, 'utf8');
const vectors = JSON.parse(text) as Vectors;
const keys = vectors.keys.response_signing;
const secrets = createSecrets(randomBytes(32));

const keyOf = (name: string): Key => {
  const key = keys[name];
  if (key === undefined) throw new Error(`no key ${name}`);
  return key;
};
const isDownload = (c: ResponseCase) => c.download && (c.response.status === 200 || c.response.status === 206);

/** The text the client builds, with the server's module. */
function signedText(c: ResponseCase): string {
  const h = c.response.headers;
  return responseSignatureBase({
    timestamp: Number(h['x-timestamp']),
    status: c.response.status,
    method: c.request.method,
    pathAndQuery: c.request.path_and_query,
    applicationId: vectors.application_id,
    nonce: c.request.x_nonce,
    requestSignature: c.request.x_signature,
    bodyDigest: isDownload(c) ? downloadBodyDigest(h['x-content-sha256'] ?? '', h['content-range']) : bodyDigest(Buffer.from(c.response.body, 'utf8')),
  });
}

/** A client's verdict with node:crypto, following docs/signing.md, Verifying in a client. */
function verdictOf(c: ResponseCase): Verdict {
  const h = c.response.headers;
  const timestamp = h['x-timestamp'];
  const header = h['x-signature'];
  if (timestamp === undefined || !/^\d+$/.test(timestamp) || header === undefined) return { valid: false, failure: 'SIGNATURE_MISSING' };
  if (isDownload(c) && !/^[0-9a-f]{64}$/.test(h['x-content-sha256'] ?? '')) return { valid: false, failure: 'SIGNATURE_MISSING' };
  const pinned = new Map(c.pinned_keys.map((name) => [keyOf(name).key_id, keyOf(name).public_key_base64]));
  const bytes = Buffer.from(signedText(c), 'utf8');
  const verified = parseSignatureHeader(header).some(({ keyId, signature }) => {
    const publicKey = pinned.get(keyId);
    if (publicKey === undefined) return false;
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey, 'base64').toString('base64url') }, format: 'jwk' });
    const raw = Buffer.from(signature, 'base64');
    return raw.length === 64 && verify(null, bytes, key, raw);
  });
  if (!verified) return { valid: false, failure: 'SIGNATURE_INVALID' };
  if (c.download && c.response.status === 200 && sha256Hex(Buffer.from(c.response.body, 'utf8')) !== h['x-content-sha256']) return { valid: false, failure: 'CONTENT_MISMATCH' };
  return { valid: true };
}

/** The SDK's verdict on the case, as a Response it received. */
async function sdkVerdict(c: ResponseCase): Promise<string> {
  const verifier = createResponseVerifier(
    c.pinned_keys.map((name) => keyOf(name).public_key_base64),
    vectors.application_id,
  );
  const body = c.response.body === '' ? null : Buffer.from(c.response.body, 'utf8');
  const response = new Response(body, { status: c.response.status, headers: c.response.headers });
  const sent = { method: c.request.method, pathAndQuery: c.request.path_and_query, nonce: c.request.x_nonce, requestSignature: c.request.x_signature };
  try {
    const answer = c.download ? await verifier.download(sent, response) : await verifier.whole(sent, response);
    await answer.response.arrayBuffer();
    return 'valid';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('docs/signing-vectors.json', () => {
  it('is what scripts/signing-vectors.mjs writes, byte for byte', async () => {
    const generator = (await import(new URL('../../scripts/signing-vectors.mjs', import.meta.url).href)) as { signingVectors(): unknown };
    expect(`${JSON.stringify(generator.signingVectors(), null, 2)}\n`).toBe(text);
  });

  it('has keys whose forms agree: seed, PKCS8, public key and key id', async () => {
    for (const key of Object.values(keys)) {
      const fromSeed = createSecrets(randomBytes(32));
      const privateKey = { publicKey: key.public_key_base64, privateKeySealed: fromSeed.seal(Buffer.from(key.private_key_seed_base64, 'base64').toString('base64url')) };
      const pkcs8 = createPublicKey(createPrivateKey({ key: Buffer.from(key.private_key_pkcs8_der_base64, 'base64'), format: 'der', type: 'pkcs8' }));
      expect(Buffer.from(pkcs8.export({ format: 'jwk' }).x as string, 'base64url').toString('base64')).toBe(key.public_key_base64);
      expect(responseKeyId(key.public_key_base64)).toBe(key.key_id);
      // The server's signer accepts the seed as its sealed private half.
      const signature = await createResponseSigningKeys(fromSeed).sign(privateKey, 'x');
      expect(verify(null, Buffer.from('x'), pkcs8, Buffer.from(signature, 'base64'))).toBe(true);
    }
  });

  it('covers valid and invalid answers and requests', () => {
    const failures = new Set(vectors.response_cases.map((c) => c.expected.failure ?? 'valid'));
    expect([...failures].sort()).toEqual(['CONTENT_MISMATCH', 'SIGNATURE_INVALID', 'SIGNATURE_MISSING', 'valid']);
    expect(new Set(vectors.request_cases.map((c) => c.expected.valid))).toEqual(new Set([true, false]));
    const licenseVerdicts = new Set(vectors.license_file_cases.map((c) => c.expected.failure ?? 'valid'));
    expect([...licenseVerdicts].sort()).toEqual(['CLOCK_ROLLED_BACK', 'EXPIRED', 'OTHER_APPLICATION', 'OTHER_MACHINE', 'SIGNATURE_INVALID', 'valid']);
    const names = [...vectors.response_cases, ...vectors.request_cases, ...vectors.license_file_cases].map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe.each(vectors.response_cases.map((c) => [c.name, c] as const))('response case %s', (_name, c) => {
  it('signs the text the server’s module builds, and reaches the expected verdict', () => {
    if (c.signed_text !== null) expect(signedText(c)).toBe(c.signed_text);
    else expect(c.expected.failure).toBe('SIGNATURE_MISSING');
    expect(verdictOf(c)).toEqual({ valid: c.expected.valid, ...(c.expected.failure === undefined ? {} : { failure: c.expected.failure }) });
  });

  it('gets the same verdict from the SDK', async () => {
    // The SDK asks for whole files only and refuses any 206 once its signature verified.
    const expected = c.expected.valid ? (c.download && c.response.status === 206 ? 'PARTIAL_CONTENT' : 'valid') : c.expected.failure;
    expect(await sdkVerdict(c)).toBe(expected);
  });
});

const validResponseCases = vectors.response_cases.filter((c) => c.expected.valid);

describe.each(validResponseCases.map((c) => [c.name, c] as const))('valid response case %s', (_name, c) => {
  it('has signatures the server’s signer makes again, byte for byte (Ed25519 is deterministic)', async () => {
    const signer = createResponseSigningKeys(secrets);
    const known = Object.values(keys);
    const entries = parseSignatureHeader(c.response.headers['x-signature'] ?? '').filter((e) => known.some((k) => k.key_id === e.keyId));
    expect(entries.length).toBeGreaterThan(0);
    for (const { keyId, signature } of entries) {
      const key = known.find((k) => k.key_id === keyId) as Key;
      const serverKey = { publicKey: key.public_key_base64, privateKeySealed: secrets.seal(Buffer.from(key.private_key_seed_base64, 'base64').toString('base64url')) };
      expect(await signer.sign(serverKey, c.signed_text as string)).toBe(signature);
    }
  });
});

describe.each(vectors.request_cases.map((c) => [c.name, c] as const))('request case %s', (_name, c) => {
  it('has the digests and text the server’s module builds, and the server accepts or refuses its x-signature as expected', () => {
    const r = c.request;
    expect(credentialsDigest(r.credential_headers)).toBe(c.credentials_digest);
    expect(requestBodyDigest(Buffer.from(r.body, 'utf8'))).toBe(c.body_digest);
    const base = requestSignatureBase({
      timestamp: r.x_timestamp,
      nonce: r.x_nonce,
      method: r.method,
      pathAndQuery: r.path_and_query,
      apiKey: r.x_api_key,
      credentialsDigest: c.credentials_digest,
      bodyDigest: c.body_digest,
    });
    expect(base).toBe(c.signed_text);
    const key = vectors.keys.request_signing_key_base64;
    expect(createRequestSignatures(secrets).matches(secrets.seal(key), base, c.x_signature)).toBe(c.expected.valid);
    if (c.expected.valid) expect(requestSignatureHeader(key, base)).toBe(c.x_signature);
  });
});

/** The verdict of the module the SDK and the CLI verify with. */
function licenseVerdict(c: LicenseFileCase): string {
  try {
    verifyLicenseFile(c.license_file, {
      keys: pinnedEd25519Keys(
        c.pinned_keys.map((name) => keyOf(name).public_key_base64),
        'pinned_keys',
      ),
      applicationId: c.application_id,
      hardwareId: c.hardware_id,
      now: c.now,
      newestSignedTime: c.newest_signed_time,
    });
    return 'valid';
  } catch (error) {
    if (!(error instanceof LicenseFileError)) throw error;
    return error.code;
  }
}

describe.each(vectors.license_file_cases.map((c) => [c.name, c] as const))('license file case %s', (_name, c) => {
  it('reads as its claims, signs the text the module builds, and reaches the expected verdict', () => {
    const { envelope, claims } = readLicenseFile(c.license_file);
    expect(claims).toEqual(c.claims);
    expect(licenseFileSigningText(envelope.kid, envelope.payload)).toBe(c.signed_text);
    expect(licenseVerdict(c)).toBe(c.expected.valid ? 'valid' : c.expected.failure);
  });
});

// Only the valid files are grants the server would sign; the others are altered or misplaced.
const validLicenseFileCases = vectors.license_file_cases.filter((c) => c.expected.valid);

describe.each(validLicenseFileCases.map((c) => [c.name, c] as const))('valid license file case %s', (_name, c) => {
  it('is the file the server’s signer makes of the same grant, byte for byte', async () => {
    const key = keyOf('current');
    const serverKey = { publicKey: key.public_key_base64, privateKeySealed: secrets.seal(Buffer.from(key.private_key_seed_base64, 'base64').toString('base64url')) };
    const m = c.claims.membership;
    const file = await createResponseSigningKeys(secrets).signLicenseFile(serverKey, {
      id: c.claims.jti,
      applicationId: c.claims.app,
      userId: c.claims.sub,
      username: c.claims.username,
      hardwareId: c.claims.hwid_sha256 === null ? null : c.hardware_id,
      membership: { isLifetime: m.is_lifetime, activeUntil: m.active_until === null ? null : m.active_until * 1000 },
      entitlements: c.claims.entitlements,
      plan: c.claims.plan,
      issuedAt: c.claims.iat * 1000,
      expiresAt: c.claims.exp * 1000,
    });
    expect(file).toBe(c.license_file);
  });
});
