// The bytes of a request signature (docs/signing.md, "Request signatures") and the server's check,
// against the worked example the page gives and a signer written apart from the server.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRequestSignatures } from '../../src/adapters/crypto/request-signatures.js';
import { createSecrets } from '../../src/adapters/crypto/secrets.js';
import { credentialsDigest, requestBodyDigest, requestSignatureBase, requestSignatureHeader } from '../../src/signing/request-signature.js';
import { signRequest } from '../support/request-signer.js';

const docs = readFileSync(new URL('../../docs/signing.md', import.meta.url), 'utf8');
const key = Buffer.alloc(32, 0x2a).toString('base64');
const apiKey = 'gh_pk_3xAmpl3K3y';
const secrets = createSecrets(randomBytes(32));
const signatures = createRequestSignatures(secrets);

const login = {
  body: '{"credentials":{"username":"alice","password":"correct horse battery"},"hardware_id":"hw-1"}',
  signed: {
    timestamp: '1780920000',
    nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD5',
    method: 'POST',
    pathAndQuery: '/api/integration/auth/login',
    apiKey,
    credentialsDigest: credentialsDigest({}),
    bodyDigest: '',
  },
};

describe('the worked example of docs/signing.md', () => {
  it('a JSON post: the digests, the text signed and the signature, as the server checks it', () => {
    expect(docs).toContain(`(\`${key}\`)`);
    const bodyDigest = requestBodyDigest(login.body);
    expect(docs).toContain(bodyDigest);
    expect(docs).toContain(login.signed.credentialsDigest);
    const base = requestSignatureBase({ ...login.signed, bodyDigest });
    expect(docs).toContain(JSON.stringify(base));
    const header = requestSignatureHeader(key, base);
    expect(docs).toContain(`x-signature: ${header}`);
    expect(signatures.matches(secrets.seal(key), base, header)).toBe(true);
    // The independent signer agrees.
    const headers = { 'x-api-key': apiKey };
    expect(signRequest({ method: 'POST', url: login.signed.pathAndQuery, headers, body: login.body, timestamp: 1780920000, nonce: login.signed.nonce }, key)).toBe(header);
  });

  it('a GET with credential headers and no body', () => {
    const credentials = { authorization: 'Bearer gh_st_session', 'x-hardware-id': 'hw-1' };
    const digest = credentialsDigest(credentials);
    expect(digest).toBe(requestBodyDigest('Bearer gh_st_session\n\n\n\nhw-1'));
    expect(docs).toContain(digest);
    expect(docs).toContain(requestBodyDigest(''));
    const base = requestSignatureBase({
      timestamp: '1780920000',
      nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD6',
      method: 'GET',
      pathAndQuery: '/api/integration/app_context?lang=en',
      apiKey,
      credentialsDigest: digest,
      bodyDigest: requestBodyDigest(''),
    });
    const header = requestSignatureHeader(key, base);
    expect(docs).toContain(`x-signature: ${header}`);
    const headers = { 'x-api-key': apiKey, ...credentials };
    expect(signRequest({ method: 'GET', url: '/api/integration/app_context?lang=en', headers, timestamp: 1780920000, nonce: 'Jq3kP9xV2mN7rT4wY8zB1cD6' }, key)).toBe(header);
  });
});

describe('the server compares signatures exactly', () => {
  const base = requestSignatureBase({ ...login.signed, bodyDigest: requestBodyDigest(login.body) });
  const good = requestSignatureHeader(key, base);
  it('refuses another key, another text, and any other spelling of the entry', () => {
    const sealed = secrets.seal(key);
    expect(signatures.matches(secrets.seal(randomBytes(32).toString('base64')), base, good)).toBe(false);
    expect(signatures.matches(sealed, `${base} `, good)).toBe(false);
    for (const other of [good.slice(0, -1), `${good} `, ` ${good}`, good.replace('v1=', 'V1='), good.replace(/=$/, ''), `${good},${good}`]) {
      expect(signatures.matches(sealed, base, other), other).toBe(false);
    }
  });
});
