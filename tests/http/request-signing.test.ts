// Signed integration requests (docs/api.md, Request signing), sent by a client's signer written apart
// from the server (tests/support/request-signer.ts) with the key the console answered once.
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp, type TestAppOptions } from '../support/test-app.js';
import { bearer, expectError } from '../support/integration.js';
import { processAll, upload } from '../support/files.js';
import { freshNonce, signedInject, signRequest, type SignedInjectOptions } from '../support/request-signer.js';
import { fieldsOf, verifies } from '../support/response-verifier.js';

let t: TestApp;
const start = async (options: TestAppOptions = {}) => {
  t = await startTestApp(options);
};
afterEach(() => t.close());

interface SigningApp {
  id: string;
  headers: Record<string, string>;
  key: string;
  adminKey: string;
}

async function signingApp(settings: Record<string, unknown> = {}): Promise<SigningApp> {
  const app = await createApplication(t, { device_auth: false, anonymous_access: true, default_allowed_sessions: 5, request_signing: true, ...settings });
  return { id: app.id, headers: app.headers, key: app.credentials.request_signing_key, adminKey: app.credentials.admin_api_key };
}

type Options = Partial<Omit<SignedInjectOptions, 'url'>> & { ip?: string };

/** A request signed now with the application's key, unless the options say otherwise. */
function signed(app: SigningApp, method: SignedInjectOptions['method'], path: string, o: Options = {}) {
  return signedInject({ method, url: `/api/integration${path}`, key: app.key, now: t.clock.now(), ...o, headers: { ...app.headers, ...o.headers } });
}

const send = (options: ReturnType<typeof signed>, ip?: string) => t.inject({ ...options, ...(ip ? { remoteAddress: ip } : {}) });

async function storedFile(app: SigningApp, content: Buffer): Promise<string> {
  const res = await upload(t, 'POST', '/api/admin/files', `Bearer ${app.adminKey}`, { name: 'game.bin', is_public: 'true', store_encrypted: 'false' }, { content });
  if (res.statusCode !== 201) throw new Error(res.body);
  await processAll(t);
  return res.json().id as string;
}

/** Signs up alice with a license through signed requests and logs her in; returns her session token. */
async function signedMember(app: SigningApp): Promise<string> {
  const credentials = { username: 'alice', password: 'alice-password-1' };
  expect((await send(signed(app, 'POST', '/sign_up', { json: credentials }))).statusCode).toBe(201);
  const [code] = await createLicenses(t, app.id, 1, 60);
  expect((await send(signed(app, 'POST', '/activate_license', { json: { code, ...credentials } }))).statusCode).toBe(200);
  const login = await send(signed(app, 'POST', '/auth/login', { json: { credentials } }));
  expect(login.statusCode, login.body).toBe(200);
  return login.json().session_token as string;
}

describe('a correctly signed request passes', () => {
  it('on every kind of integration endpoint: JSON posts, a GET with a query and credentials, a download, a HEAD, a post without a body', async () => {
    await start();
    const app = await signingApp();
    const content = randomBytes(3000);
    const fileId = await storedFile(app, content);
    const token = await signedMember(app);

    const context = await send(signed(app, 'GET', '/app_context?lang=en&x=%20y', { headers: bearer(token) }));
    expect(context.statusCode, context.body).toBe(200);
    expect(context.json().application.files.map((f: { id: string }) => f.id)).toEqual([fileId]);

    const download = await send(signed(app, 'GET', `/files/${fileId}/download`, { headers: bearer(token) }));
    expect(download.statusCode, download.body).toBe(200);
    expect(download.rawPayload.equals(content)).toBe(true);
    const range = await send(signed(app, 'GET', `/files/${fileId}/download`, { headers: { ...bearer(token), range: 'bytes=0-99' } }));
    expect(range.statusCode).toBe(206);
    expect((await send(signed(app, 'HEAD', `/files/${fileId}/download`, { headers: bearer(token) }))).statusCode).toBe(200);

    const logout = await send(signed(app, 'POST', '/auth/logout', { headers: bearer(token) }));
    expect(logout.statusCode, logout.body).toBe(204);
    // A body of {} where none is needed is signed as sent.
    const relog = await send(signed(app, 'POST', '/auth/login', { json: { credentials: { username: 'alice', password: 'alice-password-1' } } }));
    expect((await send(signed(app, 'POST', '/auth/logout', { headers: bearer(relog.json().session_token), json: {} }))).statusCode).toBe(204);
  });

  it('with legacy credential headers, whose values the signature covers', async () => {
    await start();
    // Legacy seats need device authentication (docs/api.md, LEGACY_AUTH_NEEDS_DEVICE_AUTH).
    const app = await signingApp({ legacy_auth: true, anonymous_access: false, device_auth: true });
    const credentials = { username: 'alice', password: 'alice-password-1', hardware_id: 'HW-1' };
    expect((await send(signed(app, 'POST', '/sign_up', { json: credentials }))).statusCode).toBe(201);
    const [code] = await createLicenses(t, app.id, 1, 60);
    expect((await send(signed(app, 'POST', '/activate_license', { json: { code, ...credentials } }))).statusCode).toBe(200);
    const legacy = { 'x-api-username': 'alice', 'x-api-password': 'alice-password-1', 'x-hardware-id': 'HW-1' };
    const res = await send(signed(app, 'GET', '/app_context', { headers: legacy }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().user.username).toBe('alice');
  });

  it('with a body sent as other bytes of the same JSON (spacing, escapes): the bytes are what is signed', async () => {
    await start();
    const app = await signingApp();
    const body = '{ "username" : "b\\u006fb",\n "password": "bob-password-1" }';
    const url = '/api/integration/sign_up';
    const headers = { ...app.headers, 'content-type': 'application/json' };
    const timestamp = Math.floor(t.clock.now() / 1000);
    const nonce = freshNonce();
    const signature = signRequest({ method: 'POST', url, headers, body, timestamp, nonce }, app.key);
    const res = await t.inject({ method: 'POST', url, headers: { ...headers, 'x-timestamp': String(timestamp), 'x-nonce': nonce, 'x-signature': signature }, payload: body });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().username).toBe('bob');
  });
});

describe('each refusal has its own code', () => {
  it('missing, expired, wrong key, tampered body, path or credential header, and replayed', async () => {
    await start();
    const app = await signingApp({ signature_window_seconds: 10 });
    const ok = signed(app, 'GET', '/app_context');
    const { 'x-signature': _s, ...noSignature } = ok.headers;
    const { 'x-timestamp': _t, ...noTimestamp } = ok.headers;
    const { 'x-nonce': _n, ...noNonce } = ok.headers;
    for (const headers of [app.headers, noSignature, noTimestamp, noNonce, { ...ok.headers, 'x-signature': '' }]) {
      expectError(await t.inject({ method: 'GET', url: '/api/integration/app_context', headers }), 401, 'SIGNATURE_REQUIRED');
    }

    const now = t.clock.now();
    expect((await send(signed(app, 'GET', '/app_context', { now: now - 10_000 }))).statusCode).toBe(200);
    expect((await send(signed(app, 'GET', '/app_context', { now: now + 10_000 }))).statusCode).toBe(200);
    expectError(await send(signed(app, 'GET', '/app_context', { now: now - 11_000 })), 401, 'SIGNATURE_EXPIRED');
    expectError(await send(signed(app, 'GET', '/app_context', { now: now + 11_000 })), 401, 'SIGNATURE_EXPIRED');
    for (const timestamp of ['soon', '1.5e9', `-${Math.floor(now / 1000)}`, `${Math.floor(now / 1000)}.0`]) {
      expectError(await send({ ...ok, headers: { ...ok.headers, 'x-timestamp': timestamp } }), 401, 'SIGNATURE_EXPIRED');
    }

    expectError(await send(signed(app, 'GET', '/app_context', { key: randomBytes(32).toString('base64') })), 401, 'SIGNATURE_INVALID');
    const good = ok.headers['x-signature'] ?? '';
    for (const signature of ['v1=', `v2=${good.slice(3)}`, `${good} ${good}`, `${good}=`, good.toLowerCase(), 'garbage']) {
      expectError(await send({ ...ok, headers: { ...ok.headers, 'x-signature': signature } }), 401, 'SIGNATURE_INVALID');
    }

    const post = signed(app, 'POST', '/sign_up', { json: { username: 'carol', password: 'carol-password-1' } });
    expectError(await send({ ...post, payload: JSON.stringify({ username: 'mallory', password: 'carol-password-1' }) }), 401, 'SIGNATURE_INVALID');
    const tamperedPath = signed(app, 'GET', '/app_context');
    expectError(await send({ ...tamperedPath, url: '/api/integration/app_context?x=1' }), 401, 'SIGNATURE_INVALID');
    const withToken = signed(app, 'GET', '/app_context', { headers: bearer('token-one') });
    expectError(await send({ ...withToken, headers: { ...withToken.headers, authorization: 'Bearer token-two' } }), 401, 'SIGNATURE_INVALID');
    const added = signed(app, 'GET', '/app_context');
    expectError(await send({ ...added, headers: { ...added.headers, 'x-hardware-id': 'hw-1' } }), 401, 'SIGNATURE_INVALID');
    const otherKey = signed(app, 'GET', '/app_context');
    expectError(await send({ ...otherKey, headers: { ...otherKey.headers, 'x-api-key': 'gh_pk_other' } }), 401, 'INVALID_API_CREDENTIALS');

    const once = signed(app, 'POST', '/sign_up', { json: { username: 'dave', password: 'dave-password-1' } });
    expect((await send(once)).statusCode).toBe(201);
    expectError(await send(once), 401, 'REQUEST_REPLAYED');
    // The same nonce on a new, correctly signed request is refused too.
    expectError(await send(signed(app, 'GET', '/app_context', { nonce: once.headers['x-nonce'] })), 401, 'REQUEST_REPLAYED');
  });

  it('the checks run in order, and a refused request does not use up its nonce', async () => {
    await start();
    const app = await signingApp({ signature_window_seconds: 10 });
    const nonce = freshNonce();
    // Expired and wrongly signed: expired first.
    expectError(await send(signed(app, 'GET', '/app_context', { nonce, now: t.clock.now() - 60_000, key: randomBytes(32).toString('base64') })), 401, 'SIGNATURE_EXPIRED');
    expectError(await send(signed(app, 'GET', '/app_context', { nonce, key: randomBytes(32).toString('base64') })), 401, 'SIGNATURE_INVALID');
    expect((await send(signed(app, 'GET', '/app_context', { nonce }))).statusCode).toBe(200);
    // Replayed and wrongly signed: invalid first.
    expectError(await send(signed(app, 'GET', '/app_context', { nonce, key: randomBytes(32).toString('base64') })), 401, 'SIGNATURE_INVALID');
    expectError(await send(signed(app, 'GET', '/app_context', { nonce })), 401, 'REQUEST_REPLAYED');
  });

  it('a nonce stays used past the window while its request could still be replayed, and per application', async () => {
    await start();
    const app = await signingApp({ signature_window_seconds: 10 });
    const other = await signingApp({ signature_window_seconds: 10 });
    // A client clock 10 s ahead: its request stays within the window until 20 s from now.
    const ahead = signed(app, 'GET', '/app_context', { now: t.clock.now() + 10_000 });
    expect((await send(ahead)).statusCode).toBe(200);
    t.clock.advance(15_000);
    expectError(await send(ahead), 401, 'REQUEST_REPLAYED');
    // Another application has its own nonces.
    expect((await send(signed(other, 'GET', '/app_context', { nonce: ahead.headers['x-nonce'] }))).statusCode).toBe(200);
  });

  it('a replay at the exact edge of a 300-second window is refused: the nonce outlives the last acceptable second', async () => {
    await start();
    const app = await signingApp({ signature_window_seconds: 300 });
    const signedAt = Math.floor(t.clock.now() / 1000) * 1000;
    t.clock.set(signedAt);
    const once = signed(app, 'GET', '/app_context');
    expect((await send(once)).statusCode).toBe(200);
    // Its timestamp is still acceptable for the whole 300th second after it.
    for (const edge of [signedAt + 300_000, signedAt + 300_999]) {
      t.clock.set(edge);
      expectError(await send(once), 401, 'REQUEST_REPLAYED');
    }
    t.clock.set(signedAt + 301_000);
    expectError(await send(once), 401, 'SIGNATURE_EXPIRED');
  });

  it('the refusals are signed answers of the application', async () => {
    await start();
    const app = await signingApp();
    const publicKey = (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().response_signing_public_key as string;
    const check = (res: LightMyRequestResponse, sent: ReturnType<typeof signed>) =>
      expect(verifies(res, fieldsOf(res, { method: 'GET', url: sent.url, nonce: sent.headers['x-nonce'], signature: sent.headers['x-signature'] }, app.id), publicKey)).toBe(true);
    const wrong = signed(app, 'GET', '/app_context', { key: randomBytes(32).toString('base64') });
    const res = await send(wrong);
    expectError(res, 401, 'SIGNATURE_INVALID');
    check(res, wrong);
    const good = signed(app, 'GET', '/app_context');
    await send(good);
    const replayed = await send(good);
    expectError(replayed, 401, 'REQUEST_REPLAYED');
    check(replayed, good);
  });
});

describe('rotating the request signing key', () => {
  it('the previous key is accepted for the signature window after the rotation, and not after', async () => {
    await start();
    const app = await signingApp({ signature_window_seconds: 30 });
    const rotated = await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/request_signing_key/rotate`);
    const fresh = rotated.json().request_signing_key as string;
    t.clock.advance(29_000);
    expect((await send(signed(app, 'GET', '/app_context'))).statusCode).toBe(200);
    expect((await send(signed(app, 'GET', '/app_context', { key: fresh }))).statusCode).toBe(200);
    t.clock.advance(1_000);
    expectError(await send(signed(app, 'GET', '/app_context')), 401, 'SIGNATURE_INVALID');
    expect((await send(signed(app, 'GET', '/app_context', { key: fresh }))).statusCode).toBe(200);
  });
});

describe('request_signing off', () => {
  it('ignores the signature headers, wrong or missing', async () => {
    await start();
    const app = await signingApp({ request_signing: false });
    expect((await t.inject({ method: 'GET', url: '/api/integration/app_context', headers: app.headers })).statusCode).toBe(200);
    const wrong = signed(app, 'GET', '/app_context', { key: randomBytes(32).toString('base64'), now: 0 });
    expect((await send(wrong)).statusCode).toBe(200);
    expect((await send(wrong)).statusCode).toBe(200);
  });
});

describe('throttling', () => {
  it('refusals are rate limited per address apart from credential failures, and correctly signed requests still pass', async () => {
    await start({ limits: { ipFailureLimit: 3 } });
    const app = await signingApp();
    const wrongKey = randomBytes(32).toString('base64');
    const attacker = '203.0.113.9';
    for (let i = 0; i < 3; i++) expectError(await send(signed(app, 'GET', '/app_context', { key: wrongKey }), attacker), 401, 'SIGNATURE_INVALID');
    const limited = await send(signed(app, 'GET', '/app_context', { key: wrongKey }), attacker);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await t.inject({ method: 'GET', url: '/api/integration/app_context', headers: app.headers, remoteAddress: attacker }), 429, 'RATE_LIMITED');
    // Correctly signed requests from the address are served, and its credential checks are not counted against.
    expect((await send(signed(app, 'GET', '/app_context'), attacker)).statusCode).toBe(200);
    const wrongPassword = signed(app, 'POST', '/auth/login', { json: { credentials: { username: 'nobody', password: 'wrong-password-1' } } });
    expectError(await send(wrongPassword, attacker), 401, 'INVALID_CREDENTIALS');
    // Another address is not limited.
    expectError(await send(signed(app, 'GET', '/app_context', { key: wrongKey }), '198.51.100.4'), 401, 'SIGNATURE_INVALID');
    // And credential failures do not count against signatures.
    for (let i = 0; i < 2; i++) await send(signed(app, 'POST', '/auth/login', { json: { credentials: { username: 'nobody', password: 'wrong-password-1' } } }), '198.51.100.4');
    expectError(await send(signed(app, 'GET', '/app_context', { key: wrongKey }), '198.51.100.4'), 401, 'SIGNATURE_INVALID');
  });
});
