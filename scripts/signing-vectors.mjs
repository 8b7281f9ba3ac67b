// Writes docs/signing-vectors.json: fixed keys, and signed answers and requests with the verdict a
// client must reach on each, for SDKs in other languages to test themselves against
// (docs/signing.md, Test vectors). Run `node scripts/signing-vectors.mjs` after changing a case.
// Deterministic: fixed keys, times and nonces, and Ed25519 signatures are deterministic.
// Written with node:crypto alone, apart from src/signing, so tests/signing/vectors.test.ts holding
// these vectors to the server's modules compares two implementations.
import { createHash, createHmac, createPrivateKey, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** An Ed25519 key pair from a 32-byte seed of `byte`, in every form a vector reader may want. */
function ed25519Key(byte) {
  const seed = Buffer.alloc(32, byte);
  const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  const publicRaw = Buffer.from(privateKey.export({ format: 'jwk' }).x, 'base64url');
  return {
    private_key_seed_base64: seed.toString('base64'),
    private_key_pkcs8_der_base64: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    public_key_base64: publicRaw.toString('base64'),
    key_id: sha256(publicRaw).slice(0, 16),
    privateKey,
  };
}

const KEYS = { current: ed25519Key(0x07), previous: ed25519Key(0x08), unpinned: ed25519Key(0x09) };
const REQUEST_SIGNING_KEY = Buffer.alloc(32, 0x2a).toString('base64');
const OTHER_REQUEST_SIGNING_KEY = Buffer.alloc(32, 0x2b).toString('base64');
const APPLICATION_ID = '0b6f5a2e-8d1c-4f3a-9e7b-2c4d6f8a0b1c';
const OTHER_APPLICATION_ID = '7e1d9c3b-5a2f-4e8d-b6c4-0f1e2d3c4b5a';
const API_KEY = 'gh_pk_3xAmpl3K3y';
const TIMESTAMP = '1780920000';
const NONCE = 'Jq3kP9xV2mN7rT4wY8zB1cD5';
const CREDENTIAL_HEADERS = ['authorization', 'x-api-username', 'x-api-password', 'x-api-license-code', 'x-hardware-id'];

// --- Requests -------------------------------------------------------------------------------

function requestParts(r) {
  const credentialsDigest = sha256(CREDENTIAL_HEADERS.map((h) => r.credential_headers[h] ?? '').join('\n'));
  const bodyDigest = sha256(Buffer.from(r.body, 'utf8'));
  const text = ['gatehouse-request-v1', r.x_timestamp, r.x_nonce, r.method, r.path_and_query, r.x_api_key, credentialsDigest, bodyDigest].join('\n');
  return { credentials_digest: credentialsDigest, body_digest: bodyDigest, signed_text: text };
}

const requestSignature = (key, text) => `v1=${createHmac('sha256', Buffer.from(key, 'base64')).update(text, 'utf8').digest('base64')}`;

const loginRequest = {
  x_timestamp: TIMESTAMP,
  x_nonce: NONCE,
  method: 'POST',
  path_and_query: '/api/integration/auth/login',
  x_api_key: API_KEY,
  credential_headers: {},
  body: '{"credentials":{"username":"alice","password":"correct horse battery"},"hardware_id":"hw-1"}',
};
const contextRequest = {
  ...loginRequest,
  x_nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD6',
  method: 'GET',
  path_and_query: '/api/integration/app_context?lang=en',
  credential_headers: { authorization: 'Bearer gh_st_session', 'x-hardware-id': 'hw-1' },
  body: '',
};
const downloadRequest = {
  ...contextRequest,
  x_nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD7',
  path_and_query: '/api/integration/files/5d2c1b0a-9e8f-4a7b-8c6d-1e2f3a4b5c6d/download',
  credential_headers: { authorization: 'Bearer gh_st_session' },
};
const legacyRequest = {
  ...loginRequest,
  x_nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD8',
  path_and_query: '/api/integration/activate_license',
  credential_headers: { 'x-api-username': 'zoë', 'x-api-password': 'pässword ✓', 'x-api-license-code': 'ABCD-EFGH', 'x-hardware-id': 'hw-1' },
  body: '{"code":"ABCD-EFGH","username":"zoë","password":"pässword ✓"}',
};

/** A valid request: its inputs, digests, text and the x-signature the key makes. */
function validRequest(name, description, request) {
  const parts = requestParts(request);
  return { name, description, request, ...parts, x_signature: requestSignature(REQUEST_SIGNING_KEY, parts.signed_text), expected: { valid: true } };
}

/** A request as received with an x-signature that must be refused: signed over `signedAs` (or given). */
function invalidRequest(name, reason, request, presented) {
  return { name, description: reason, request, ...requestParts(request), x_signature: presented, expected: { valid: false, reason } };
}

const signedOver = (request, key = REQUEST_SIGNING_KEY) => requestSignature(key, requestParts(request).signed_text);
const loginSignature = signedOver(loginRequest);

const requestCases = [
  validRequest('post_json_login', 'A JSON post without credential headers (the worked example of docs/signing.md).', loginRequest),
  validRequest('get_with_query_and_credentials', 'A GET with a query, a session token and a hardware id; no body.', contextRequest),
  validRequest('get_download', 'A download: a GET, so the body digest is that of nothing.', downloadRequest),
  validRequest('post_legacy_credentials_utf8', 'Every credential header but authorization, with non-ASCII values and body (UTF-8).', legacyRequest),
  invalidRequest('other_key', 'signed with another request signing key', loginRequest, signedOver(loginRequest, OTHER_REQUEST_SIGNING_KEY)),
  invalidRequest('body_changed', 'the body was changed after signing', { ...loginRequest, body: loginRequest.body.replace('alice', 'mallory') }, loginSignature),
  invalidRequest(
    'credential_header_added',
    'a credential header (authorization) was added after signing',
    { ...loginRequest, credential_headers: { authorization: 'Bearer gh_st_other' } },
    loginSignature,
  ),
  invalidRequest(
    'query_reordered',
    'the query was reordered: the path and query are signed as sent',
    { ...contextRequest, path_and_query: '/api/integration/app_context?b=2&a=1' },
    signedOver({ ...contextRequest, path_and_query: '/api/integration/app_context?a=1&b=2' }),
  ),
  invalidRequest('timestamp_changed', 'the x-timestamp header was changed after signing', { ...loginRequest, x_timestamp: '1780920001' }, loginSignature),
  invalidRequest('nonce_changed', 'the x-nonce header was changed after signing', { ...loginRequest, x_nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD9' }, loginSignature),
  invalidRequest('method_lower_case', 'the method was signed in lower case', loginRequest, signedOver({ ...loginRequest, method: 'post' })),
  invalidRequest('entry_spelled_V1', 'the entry is spelled V1= instead of v1=', loginRequest, loginSignature.replace('v1=', 'V1=')),
  invalidRequest('padding_stripped', 'the base64 lost its padding', loginRequest, loginSignature.replace(/=+$/, '')),
];

// --- Responses ------------------------------------------------------------------------------

/** The eight lines a response signature covers, from what the client sent and received. */
function responseText(c) {
  const h = c.response.headers;
  const digest = c.download && (c.response.status === 200 || c.response.status === 206) ? `${h['x-content-sha256']}:${h['content-range'] ?? ''}` : sha256(Buffer.from(c.response.body, 'utf8'));
  const r = c.request;
  return ['gatehouse-response-v1', h['x-timestamp'], String(c.response.status), `${r.method} ${r.path_and_query}`, APPLICATION_ID, r.x_nonce, r.x_signature, digest].join('\n');
}

const entry = (keyName, text) => `v1=${KEYS[keyName].key_id}:${sign(null, Buffer.from(text, 'utf8'), KEYS[keyName].privateKey).toString('base64')}`;

/** An answer as the server signs it: x-signature over the case as it stands, by `keyNames` in order. */
function signed(c, keyNames = ['current']) {
  const text = responseText(c);
  return { ...c, response: { ...c.response, headers: { ...c.response.headers, 'x-signature': keyNames.map((k) => entry(k, text)).join(' ') } } };
}

/** Changes one thing of a signed case after signing (what a man in the middle or a replay does). */
const altered = (c, change) => change(structuredClone(c));

/** A case, with the text the client builds from it; null when a header it needs is missing or malformed. */
function responseCase(name, description, c, expected, pinned = ['current']) {
  return { name, description, pinned_keys: pinned, ...c, signed_text: expected.failure === 'SIGNATURE_MISSING' ? null : responseText(c), expected };
}

const VALID = { valid: true };
const invalid = (failure, reason) => ({ valid: false, failure, reason });

const contextAnswer = signed({
  request: { method: 'GET', path_and_query: '/api/integration/app_context?lang=en', x_nonce: NONCE, x_signature: '' },
  download: false,
  response: { status: 200, headers: { 'x-timestamp': TIMESTAMP }, body: '{"status":"ok"}' },
});
const loginAnswer = signed({
  request: { method: 'POST', path_and_query: '/api/integration/auth/login', x_nonce: NONCE, x_signature: loginSignature },
  download: false,
  response: { status: 200, headers: { 'x-timestamp': TIMESTAMP }, body: '{"session_token":"gh_st_session","expires_at":"2026-06-08T12:00:00.000Z"}' },
});
const refusalAnswer = signed({
  request: { method: 'POST', path_and_query: '/api/integration/auth/login', x_nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD6', x_signature: '' },
  download: false,
  response: { status: 401, headers: { 'x-timestamp': TIMESTAMP }, body: '{"error_code":"INVALID_CREDENTIALS","message":"wrong username or password","detail":null}' },
});
const logoutAnswer = signed({
  request: { method: 'POST', path_and_query: '/api/integration/auth/logout', x_nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD7', x_signature: '' },
  download: false,
  response: { status: 204, headers: { 'x-timestamp': TIMESTAMP }, body: '' },
});
const noNonceAnswer = signed({
  request: { method: 'GET', path_and_query: '/api/integration/app_context', x_nonce: '', x_signature: '' },
  download: false,
  response: { status: 200, headers: { 'x-timestamp': TIMESTAMP }, body: '{"variables":[{"name":"motd","value":"Café ✓ — 日本"}]}' },
});
const FILE = 'a'.repeat(1000);
const DOWNLOAD_PATH = '/api/integration/files/5d2c1b0a-9e8f-4a7b-8c6d-1e2f3a4b5c6d/download';
const wholeDownload = signed({
  request: { method: 'GET', path_and_query: DOWNLOAD_PATH, x_nonce: NONCE, x_signature: '' },
  download: true,
  response: { status: 200, headers: { 'x-timestamp': TIMESTAMP, 'x-content-sha256': sha256(FILE) }, body: FILE },
});
const rangeDownload = signed({
  request: { method: 'GET', path_and_query: DOWNLOAD_PATH, x_nonce: NONCE, x_signature: '' },
  download: true,
  response: { status: 206, headers: { 'x-timestamp': TIMESTAMP, 'x-content-sha256': sha256(FILE), 'content-range': 'bytes 0-99/1000' }, body: FILE.slice(0, 100) },
});
const rotating = signed(contextAnswer, ['current', 'previous']);
const setHeader = (name, value) => (c) => ((c.response.headers[name] = value), c);

const responseCases = [
  responseCase('json_200', 'A JSON answer to a GET with a query and a nonce (the worked example of docs/signing.md).', contextAnswer, VALID),
  responseCase('answer_to_signed_request', 'The answer to a signed request binds its x-signature (request case post_json_login).', loginAnswer, VALID),
  responseCase('signed_refusal_401', 'A refusal is signed like a success.', refusalAnswer, VALID),
  responseCase('no_content_204', 'An empty body digests the empty string.', logoutAnswer, VALID),
  responseCase('no_nonce_utf8_body', 'A request without x-nonce leaves its line empty; a non-ASCII body is digested as UTF-8 bytes.', noNonceAnswer, VALID),
  responseCase('download_200', 'A whole download: signed over x-content-sha256 and an empty Content-Range; the body must then have that SHA-256.', wholeDownload, VALID),
  responseCase('download_206', 'A range: signed over x-content-sha256 and the Content-Range; the part cannot be held to the whole file’s digest.', rangeDownload, VALID),
  responseCase('rotation_pin_previous', 'During a rotation both keys sign; a client pinning only the previous key accepts its entry.', rotating, VALID, ['previous']),
  responseCase('rotation_pin_both', 'A client pinning both keys accepts the answer.', rotating, VALID, ['current', 'previous']),
  responseCase(
    'unknown_entry_passed_over',
    'An entry of another version or shape is passed over, not refused.',
    altered(contextAnswer, (c) => setHeader('x-signature', `v2=future:AAAA ${c.response.headers['x-signature']}`)(c)),
    VALID,
  ),
  responseCase(
    'tampered_body',
    'One byte of the body was changed.',
    altered(contextAnswer, (c) => ((c.response.body = '{"status":"OK"}'), c)),
    invalid('SIGNATURE_INVALID', 'tampered body'),
  ),
  responseCase(
    'wrong_nonce',
    'An old answer replayed to a request that sent another nonce.',
    altered(contextAnswer, (c) => ((c.request.x_nonce = 'Zz9yX8wV7uT6sR5qP4oN3mL2'), c)),
    invalid('SIGNATURE_INVALID', 'wrong nonce (replayed answer)'),
  ),
  responseCase(
    'wrong_request_signature',
    'The answer was made for a request with another x-signature.',
    altered(loginAnswer, (c) => ((c.request.x_signature = signedOver({ ...loginRequest, x_nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD9' })), c)),
    invalid('SIGNATURE_INVALID', 'wrong request x-signature'),
  ),
  responseCase(
    'wrong_status',
    'The status was changed (a forged refusal).',
    altered(contextAnswer, (c) => ((c.response.status = 403), c)),
    invalid('SIGNATURE_INVALID', 'wrong status'),
  ),
  responseCase('wrong_timestamp', 'x-timestamp was changed.', altered(contextAnswer, setHeader('x-timestamp', '1780920060')), invalid('SIGNATURE_INVALID', 'wrong timestamp')),
  responseCase(
    'wrong_path',
    'The answer to another query.',
    altered(contextAnswer, (c) => ((c.request.path_and_query = '/api/integration/app_context?lang=fr'), c)),
    invalid('SIGNATURE_INVALID', 'wrong path and query'),
  ),
  responseCase(
    'wrong_method',
    'The answer to another method.',
    altered(contextAnswer, (c) => ((c.request.method = 'HEAD'), c)),
    invalid('SIGNATURE_INVALID', 'wrong method'),
  ),
  responseCase(
    'other_application',
    'Signed for another application with the same key.',
    altered(contextAnswer, (c) => setHeader('x-signature', entry('current', responseText(c).replace(APPLICATION_ID, OTHER_APPLICATION_ID)))(c)),
    invalid('SIGNATURE_INVALID', 'wrong application id'),
  ),
  responseCase('unpinned_key', 'Signed by a key the client does not pin.', signed(contextAnswer, ['unpinned']), invalid('SIGNATURE_INVALID', 'key id not pinned')),
  responseCase(
    'wrong_key_id',
    'The pinned key’s id on a signature made by another key.',
    altered(signed(contextAnswer, ['unpinned']), (c) => setHeader('x-signature', c.response.headers['x-signature'].replace(KEYS.unpinned.key_id, KEYS.current.key_id))(c)),
    invalid('SIGNATURE_INVALID', 'wrong key id: the signature is not the named key’s'),
  ),
  responseCase(
    'truncated_signature',
    'The signature lost its last bytes.',
    altered(contextAnswer, (c) => setHeader('x-signature', c.response.headers['x-signature'].slice(0, -8))(c)),
    invalid('SIGNATURE_INVALID', 'truncated signature'),
  ),
  responseCase(
    'missing_signature',
    'No x-signature header.',
    altered(contextAnswer, (c) => (delete c.response.headers['x-signature'], c)),
    invalid('SIGNATURE_MISSING', 'no x-signature'),
  ),
  responseCase('malformed_timestamp', 'x-timestamp is not a decimal integer.', altered(contextAnswer, setHeader('x-timestamp', '1780920000.0')), invalid('SIGNATURE_MISSING', 'malformed x-timestamp')),
  responseCase(
    'download_range_changed',
    'Another range served under the signature of the first.',
    altered(rangeDownload, (c) => (setHeader('content-range', 'bytes 100-199/1000')(c), c)),
    invalid('SIGNATURE_INVALID', 'wrong Content-Range'),
  ),
  responseCase(
    'download_digest_changed',
    'x-content-sha256 of other bytes, with those bytes.',
    altered(wholeDownload, (c) => ((c.response.body = 'b'.repeat(1000)), setHeader('x-content-sha256', sha256('b'.repeat(1000)))(c))),
    invalid('SIGNATURE_INVALID', 'wrong x-content-sha256'),
  ),
  responseCase(
    'download_content_mismatch',
    'The headers verify, but one byte of the file was changed: its SHA-256 is not x-content-sha256.',
    altered(wholeDownload, (c) => ((c.response.body = `b${FILE.slice(1)}`), c)),
    invalid('CONTENT_MISMATCH', 'downloaded bytes do not match x-content-sha256'),
  ),
  responseCase(
    'download_without_content_sha256',
    'A download answer without x-content-sha256.',
    altered(wholeDownload, (c) => (delete c.response.headers['x-content-sha256'], c)),
    invalid('SIGNATURE_MISSING', 'no x-content-sha256'),
  ),
];

// --- License files --------------------------------------------------------------------------

const HARDWARE_ID = 'hw-1';
const DAY = 24 * 3600;
const ISSUED_AT = Number(TIMESTAMP);

/** The claims of a file for alice on hw-1, 30 days of membership left, 14 days of TTL, in the order the server writes them. */
const licenseClaims = (changes = {}) => ({
  app: APPLICATION_ID,
  sub: 'c4a7e2d1-3b5f-4c8e-9a1d-6f2e8b0c4d7a',
  username: 'alice',
  hwid_sha256: sha256(`${APPLICATION_ID}:${HARDWARE_ID}`),
  membership: { is_lifetime: false, active_until: ISSUED_AT + 30 * DAY },
  entitlements: ['export', 'sync'],
  plan: { id: '5e2d7c4b-1a3f-4b6e-8d9c-0f1e2d3c4b5a', name: 'Pro' },
  iat: ISSUED_AT,
  exp: ISSUED_AT + 14 * DAY,
  jti: '9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a',
  ...changes,
});

const armour = (envelope) => `-----BEGIN GATEHOUSE LICENSE FILE-----\n${Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64')}\n-----END GATEHOUSE LICENSE FILE-----\n`;

/** A file as the server writes it: the claims signed by `keyName` over gatehouse-license-v1, kid and payload. */
function licenseFile(claims, keyName = 'current') {
  const kid = KEYS[keyName].key_id;
  const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  const signedText = `gatehouse-license-v1\n${kid}\n${payload}`;
  const sig = sign(null, Buffer.from(signedText, 'utf8'), KEYS[keyName].privateKey).toString('base64url');
  return { text: armour({ v: 1, alg: 'ed25519', kid, payload, sig }), signedText };
}

/** What a client on `hardware_id` checks at `now` (Unix seconds), having seen `newest_signed_time`, and its verdict. */
function licenseCase(name, description, file, claims, check, expected) {
  return {
    name,
    description,
    pinned_keys: ['current'],
    application_id: APPLICATION_ID,
    hardware_id: HARDWARE_ID,
    now: ISSUED_AT + DAY,
    newest_signed_time: ISSUED_AT,
    ...check,
    license_file: file.text,
    signed_text: file.signedText,
    claims,
    expected,
  };
}

const aliceClaims = licenseClaims();
const aliceFile = licenseFile(aliceClaims);
const anyMachineClaims = licenseClaims({ hwid_sha256: null, membership: { is_lifetime: true, active_until: null }, entitlements: [], plan: null });
/** The valid file with a year more written into its payload, its signature kept. */
const tamperedFile = (() => {
  const claims = { ...aliceClaims, exp: aliceClaims.exp + 365 * DAY };
  const envelope = JSON.parse(Buffer.from(aliceFile.text.split('\n')[1], 'base64').toString('utf8'));
  const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return { claims, file: { text: armour({ ...envelope, payload }), signedText: `gatehouse-license-v1\n${envelope.kid}\n${payload}` } };
})();

const licenseFileCases = [
  licenseCase('license_valid', 'A file for alice on hw-1, a day after issuance: 30 days of membership, so the TTL of 14 days sets exp.', aliceFile, aliceClaims, {}, VALID),
  licenseCase(
    'license_valid_any_machine',
    'A lifetime user of an application without device authentication: hwid_sha256 is null, any machine (or none) passes.',
    licenseFile(anyMachineClaims),
    anyMachineClaims,
    { hardware_id: null },
    VALID,
  ),
  licenseCase(
    'license_expired',
    'The valid file at its exp: expired.',
    aliceFile,
    aliceClaims,
    { now: aliceClaims.exp, newest_signed_time: aliceClaims.exp - 60 },
    invalid('EXPIRED', 'now is at or past exp'),
  ),
  licenseCase(
    'license_wrong_machine',
    'The valid file on another machine.',
    aliceFile,
    aliceClaims,
    { hardware_id: 'hw-2' },
    invalid('OTHER_MACHINE', 'hwid_sha256 is not that of this application and hardware id'),
  ),
  licenseCase(
    'license_wrong_application',
    'The valid file checked by a client of another application (that pins the same key).',
    aliceFile,
    aliceClaims,
    { application_id: OTHER_APPLICATION_ID },
    invalid('OTHER_APPLICATION', 'app is not the client’s application'),
  ),
  licenseCase('license_tampered', 'A year more written into the payload, the signature kept.', tamperedFile.file, tamperedFile.claims, {}, invalid('SIGNATURE_INVALID', 'tampered payload')),
  licenseCase(
    'license_other_key',
    'The claims of the valid file signed by a key the client does not pin.',
    licenseFile(aliceClaims, 'unpinned'),
    aliceClaims,
    {},
    invalid('SIGNATURE_INVALID', 'kid not pinned'),
  ),
  licenseCase(
    'license_clock_rolled_back',
    'Within the file’s life, but the client has seen a signed time two days later: its clock was set back.',
    aliceFile,
    aliceClaims,
    { newest_signed_time: ISSUED_AT + 3 * DAY },
    invalid('CLOCK_ROLLED_BACK', 'now is more than 300 seconds behind the newest signed time seen'),
  ),
];

const publicKeyOf = ({ privateKey: _privateKey, ...rest }) => rest;

export function signingVectors() {
  return {
    about: [
      'Test vectors of Gatehouse response and request signatures (docs/signing.md). Generated by scripts/signing-vectors.mjs; checked by tests/signing/vectors.test.ts.',
      'Strings are UTF-8: a body is the UTF-8 bytes of its "body" string. Header names are lower case. Keys: Ed25519 private keys as the raw 32-byte seed (base64) and as PKCS8 DER (base64), public keys as the raw 32 bytes (base64); the request signing key as its raw 32 bytes (base64), as the console shows request_signing_key.',
      'Response cases: the client pins the public keys named in pinned_keys, knows application_id, sent request (x_signature empty: the request was not signed; x_nonce empty: none sent) and received response. signed_text is the text the client builds from them (null when it cannot: a header is missing or malformed). download: the request was a file download, so a 200 or 206 is digested as <x-content-sha256>:<content-range or empty>, and a 200 body must then have the SHA-256 x-content-sha256. expected.failure is the SignatureError code the TypeScript SDK raises.',
      'Request cases: the request as received; a valid one carries the x_signature the key makes over signed_text, an invalid one an x_signature that the server must refuse (SIGNATURE_INVALID).',
      'License file cases: a client pinning pinned_keys, of application_id, on the machine hardware_id (null: none), whose clock reads now (Unix seconds) and that has seen newest_signed_time, verifies license_file. signed_text is what sig signs (gatehouse-license-v1, kid, payload), claims the payload decoded. expected.failure is the LicenseFileError code of the TypeScript SDK; a clock more than 300 seconds behind the newest signed time seen (the file’s iat included) is rolled back.',
    ],
    application_id: APPLICATION_ID,
    keys: {
      response_signing: Object.fromEntries(Object.entries(KEYS).map(([name, key]) => [name, publicKeyOf(key)])),
      request_signing_key_base64: REQUEST_SIGNING_KEY,
    },
    response_cases: responseCases,
    request_cases: requestCases,
    license_file_cases: licenseFileCases,
  };
}

export const VECTORS_FILE = fileURLToPath(new URL('../docs/signing-vectors.json', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(VECTORS_FILE, `${JSON.stringify(signingVectors(), null, 2)}\n`);
  console.log(`wrote ${VECTORS_FILE}`);
}
