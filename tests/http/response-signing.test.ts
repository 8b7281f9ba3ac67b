// Signed integration answers (docs/api.md, Response signing), checked by a client's verifier written
// apart from the server (tests/support/response-verifier.ts) with the key the console shows.
import { createHash, randomBytes } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, expectError } from '../support/integration.js';
import { processAll, upload } from '../support/files.js';
import { fieldsOf, newNonce, signatureEntries, verifies, type SentRequest } from '../support/response-verifier.js';
import { MISSING_ID } from './console-helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface SignedApp {
  id: string;
  headers: Record<string, string>;
  credentials: { admin_api_key: string };
  publicKey: string;
}

async function signedApp(settings: Record<string, unknown> = {}): Promise<SignedApp> {
  const app = await createApplication(t, settings);
  const shown = (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json();
  return { ...app, publicKey: shown.response_signing_public_key as string };
}

interface Exchange {
  res: LightMyRequestResponse;
  sent: SentRequest;
}

interface SendOptions {
  payload?: unknown;
  headers?: Record<string, string>;
  /** The x-nonce to send; null: none. A fresh one by default. */
  nonce?: string | null;
}

async function send(app: { headers: Record<string, string> }, method: InjectOptions['method'] & string, path: string, options: SendOptions = {}): Promise<Exchange> {
  const url = `/api/integration${path}`;
  const nonce = options.nonce === null ? undefined : (options.nonce ?? newNonce());
  const res = await t.inject({
    method,
    url,
    headers: { ...app.headers, ...(nonce === undefined ? {} : { 'x-nonce': nonce }), ...options.headers },
    ...(options.payload === undefined ? {} : { payload: options.payload as object }),
  });
  return { res, sent: { method, url, ...(nonce === undefined ? {} : { nonce }) } };
}

function expectSigned({ res, sent }: Exchange, app: SignedApp): void {
  const label = `${sent.method} ${sent.url} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
  expect(res.headers['x-timestamp'], label).toBe(String(Math.floor(t.clock.now() / 1000)));
  expect(verifies(res, fieldsOf(res, sent, app.id), app.publicKey), label).toBe(true);
}

function expectUnsigned(res: LightMyRequestResponse): void {
  for (const name of ['x-signature', 'x-timestamp', 'x-content-sha256']) expect(res.headers[name], name).toBeUndefined();
}

async function storedFile(app: SignedApp, name: string, content: Buffer, encrypted = false): Promise<string> {
  const res = await upload(t, 'POST', '/api/admin/files', `Bearer ${app.credentials.admin_api_key}`, { name, is_public: 'true', store_encrypted: String(encrypted) }, { content });
  if (res.statusCode !== 201) throw new Error(res.body);
  await processAll(t);
  return res.json().id as string;
}

describe('every integration answer of the application is signed', () => {
  it('successes and errors of every endpoint verify with the public key the console shows', async () => {
    const app = await signedApp({ device_auth: false });
    const password = 'alice-password-1';
    const steps: Exchange[] = [];
    const step = async (method: 'GET' | 'POST' | 'HEAD', path: string, options: SendOptions, status: number) => {
      const exchange = await send(app, method, path, options);
      expect(exchange.res.statusCode, `${method} ${path}: ${exchange.res.body}`).toBe(status);
      steps.push(exchange);
      return exchange.res;
    };
    await step('POST', '/sign_up', { payload: { username: 'alice', password } }, 201);
    await step('POST', '/sign_up', { payload: { username: 'alice', password } }, 422);
    // A malformed body is refused before the key is looked at; the answer is still the application's.
    await step('POST', '/sign_up', { payload: { username: 5 } }, 422);
    const [first, second] = (await createLicenses(t, app.id, 2, 60)) as [string, string];
    await step('POST', '/activate_license', { payload: { code: first, username: 'alice', password } }, 200);
    await step('POST', '/activate_license', { payload: { code: second, username: 'alice', password: 'wrong-password-1' } }, 401);
    await step('POST', '/sign_up_with_license_code', { payload: { code: second } }, 201);
    const login = await step('POST', '/auth/login', { payload: { credentials: { username: 'alice', password } } }, 200);
    const user = bearer(login.json().session_token as string);
    await step('GET', '/app_context', { headers: user }, 200);
    await step('GET', '/app_context?lang=en&x=%20', { headers: user }, 200);
    await step('HEAD', '/app_context', { headers: user }, 200);
    await step('GET', '/app_context', {}, 401);
    await step('GET', `/files/${MISSING_ID}/download`, { headers: user }, 404);
    await step('GET', '/no_such_endpoint', {}, 404);
    await step('POST', '/auth/logout', { headers: user }, 204);
    await step('POST', '/auth/login', { payload: { credentials: { username: 'alice', password: 'wrong-password-1' } } }, 401);
    for (const exchange of steps) expectSigned(exchange, app);
  });

  it('downloads (200 and 206) carry the stored file’s SHA-256 and are signed by it and the range; 304 and 416 are signed too', async () => {
    const app = await signedApp({ anonymous_access: true, device_auth: false });
    const content = randomBytes(1000);
    const id = await storedFile(app, 'plain.bin', content);
    const path = `/files/${id}/download`;

    const whole = await send(app, 'GET', path);
    expect(whole.res.statusCode).toBe(200);
    expect(whole.res.headers['x-content-sha256']).toBe(sha256(content));
    expectSigned(whole, app);

    const part = await send(app, 'GET', path, { headers: { range: 'bytes=10-19' } });
    expect(part.res.statusCode).toBe(206);
    expect(part.res.headers['content-range']).toBe('bytes 10-19/1000');
    expect(part.res.headers['x-content-sha256']).toBe(sha256(content));
    expectSigned(part, app);
    // The range is signed: the same digest without it does not verify.
    const fields = fieldsOf(part.res, part.sent, app.id);
    expect(verifies(part.res, { ...fields, bodyDigest: `${sha256(content)}:` }, app.publicKey)).toBe(false);

    const notModified = await send(app, 'GET', path, { headers: { 'if-none-match': String(whole.res.headers['etag']) } });
    expect(notModified.res.statusCode).toBe(304);
    expect(notModified.res.headers['x-content-sha256']).toBeUndefined();
    expectSigned(notModified, app);

    const outside = await send(app, 'GET', path, { headers: { range: 'bytes=5000-' } });
    expectError(outside.res, 416, 'RANGE_NOT_SATISFIABLE');
    expect(outside.res.headers['x-content-sha256']).toBeUndefined();
    expectSigned(outside, app);

    // An encrypted file: the digest of the bytes as stored and served, not of the plain text.
    const sealed = await send(app, 'GET', `/files/${await storedFile(app, 'sealed.bin', content, true)}/download`);
    expect(sealed.res.statusCode).toBe(200);
    expect(sealed.res.headers['x-content-sha256']).toBe(sha256(sealed.res.rawPayload));
    expect(sealed.res.headers['x-content-sha256']).not.toBe(sha256(content));
    expectSigned(sealed, app);
  });

  it('x-timestamp is the server’s clock in Unix seconds', async () => {
    const app = await signedApp({ anonymous_access: true });
    t.clock.advance(90_500);
    const exchange = await send(app, 'GET', '/app_context');
    expect(exchange.res.headers['x-timestamp']).toBe(String(Math.floor(t.clock.now() / 1000)));
    expectSigned(exchange, app);
  });
});

describe('what a signature binds', () => {
  it('a changed body, status, path, application, nonce, request signature or timestamp fails verification', async () => {
    const app = await signedApp({ anonymous_access: true });
    const { res, sent } = await send(app, 'GET', '/app_context');
    const fields = fieldsOf(res, sent, app.id);
    expect(verifies(res, fields, app.publicKey)).toBe(true);
    const changed = [
      { bodyDigest: sha256(Buffer.concat([res.rawPayload, Buffer.from(' ')])) },
      { status: '201' },
      { requestLine: 'GET /api/integration/app_context?' },
      { requestLine: 'POST /api/integration/app_context' },
      { applicationId: MISSING_ID },
      { nonce: newNonce() },
      { requestSignature: 'v1=AAAA' },
      { timestamp: String(Number(fields.timestamp) + 1) },
    ];
    for (const change of changed) expect(verifies(res, { ...fields, ...change }, app.publicKey), JSON.stringify(change)).toBe(false);
  });

  it('an answer to one nonce does not verify as the answer to another; without a nonce the line is empty', async () => {
    const app = await signedApp({ anonymous_access: true });
    const a = await send(app, 'GET', '/app_context');
    const b = await send(app, 'GET', '/app_context');
    expect(a.res.body).toBe(b.res.body);
    expectSigned(a, app);
    expectSigned(b, app);
    // The same answer replayed to the request that sent b's nonce.
    expect(verifies(a.res, fieldsOf(a.res, b.sent, app.id), app.publicKey)).toBe(false);
    const none = await send(app, 'GET', '/app_context', { nonce: null });
    expectSigned(none, app);
    expect(verifies(none.res, fieldsOf(none.res, a.sent, app.id), app.publicKey)).toBe(false);
  });

  it('the request’s x-signature header is part of what the answer signs', async () => {
    const app = await signedApp({ anonymous_access: true });
    const exchange = await send(app, 'GET', '/app_context', { headers: { 'x-signature': 'v1=c2lnbmVk' } });
    expect(exchange.res.statusCode).toBe(200);
    expectSigned({ ...exchange, sent: { ...exchange.sent, signature: 'v1=c2lnbmVk' } }, app);
    expect(verifies(exchange.res, fieldsOf(exchange.res, exchange.sent, app.id), app.publicKey)).toBe(false);
  });
});

describe('rotation of the response signing key', () => {
  it('both keys sign until the previous one is removed; then only the new one does', async () => {
    const app = await signedApp({ anonymous_access: true });
    const first = app.publicKey;
    expect([...signatureEntries((await send(app, 'GET', '/app_context')).res).keys()]).toHaveLength(1);

    const rotated = await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/response_signing_key/rotate`);
    expect(rotated.statusCode).toBe(200);
    const second = rotated.json().response_signing_public_key as string;
    expect(second).not.toBe(first);

    const during = await send(app, 'GET', '/app_context');
    expect([...signatureEntries(during.res).keys()]).toHaveLength(2);
    expectSigned(during, { ...app, publicKey: first });
    expectSigned(during, { ...app, publicKey: second });
    // The current key's entry comes first.
    expect(String(during.res.headers['x-signature']).split(' ')[0]).toContain(`v1=${rotated.json().response_signing_key_id}:`);

    const removed = await consoleRequest(t, 'DELETE', `/applications/${app.id}/credentials/response_signing_key/previous`);
    expect(removed.statusCode).toBe(204);
    const after = await send(app, 'GET', '/app_context');
    expect([...signatureEntries(after.res).keys()]).toHaveLength(1);
    expectSigned(after, { ...app, publicKey: second });
    expect(verifies(after.res, fieldsOf(after.res, after.sent, app.id), first)).toBe(false);
  });
});

describe('answers that are not signed', () => {
  it('a request whose API key or secret is refused, whatever else is wrong with it', async () => {
    const app = await signedApp({ anonymous_access: true });
    const wrongSecret = { headers: { 'x-api-key': app.headers['x-api-key'] as string, 'x-api-secret': 'gh_sk_wrong' } };
    const refused = await send(wrongSecret, 'GET', '/app_context');
    expectError(refused.res, 401, 'INVALID_API_CREDENTIALS');
    expectUnsigned(refused.res);
    expectUnsigned(await send({ headers: {} }, 'GET', '/app_context').then((e) => e.res));
    // A malformed body is answered before the key is checked: still nobody's answer to sign.
    const malformed = await send(wrongSecret, 'POST', '/sign_up', { payload: { username: 5 } });
    expectError(malformed.res, 422, 'VALIDATION_FAILED');
    expectUnsigned(malformed.res);
    expectUnsigned((await send(wrongSecret, 'GET', '/no_such_endpoint')).res);
  });

  it('an application with response_signing off, until it is turned on', async () => {
    const app = await signedApp({ anonymous_access: true, device_auth: false, response_signing: false });
    const id = await storedFile(app, 'f.bin', randomBytes(64));
    for (const path of ['/app_context', `/files/${id}/download`, `/files/${MISSING_ID}/download`]) {
      const { res } = await send(app, 'GET', path);
      expect(res.statusCode).toBeLessThan(500);
      expectUnsigned(res);
    }
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { response_signing: true })).statusCode).toBe(200);
    expectSigned(await send(app, 'GET', `/files/${id}/download`), app);
  });

  it('admin and console answers', async () => {
    const app = await signedApp();
    expectUnsigned(await t.inject({ method: 'GET', url: '/api/admin/files', headers: bearer(app.credentials.admin_api_key) }));
    expectUnsigned(await consoleRequest(t, 'GET', `/applications/${app.id}`));
  });
});

describe('x-nonce', () => {
  it('a malformed x-nonce answers 422 naming it (signed, binding what was sent); 16 and 64 characters pass', async () => {
    const app = await signedApp({ anonymous_access: true });
    for (const nonce of ['a'.repeat(15), 'a'.repeat(65), 'has spaces in it!!', 'slash/and+plus=abc', 'dots.are.not.allowed']) {
      const exchange = await send(app, 'GET', '/app_context', { nonce });
      const body = expectError(exchange.res, 422, 'VALIDATION_FAILED') as { errors?: Array<{ field: string }> };
      expect(body.errors?.[0]?.field, nonce).toBe('x-nonce');
      expectSigned(exchange, app);
    }
    for (const nonce of ['Az09_-Az09_-Az09', `${'x'.repeat(62)}_-`]) {
      const exchange = await send(app, 'GET', '/app_context', { nonce });
      expect(exchange.res.statusCode, nonce).toBe(200);
      expectSigned(exchange, app);
    }
  });
});
