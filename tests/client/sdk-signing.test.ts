// The SDK with pinned response signing keys (docs/sdk.md, Client SDK, Verifying answers) against a real
// server process, through a proxy (node:http) in this test that records every exchange and can
// rewrite, replay or strip an answer: whatever it changes, the SDK refuses with a SignatureError.
import { randomBytes, createHash, generateKeyPairSync } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLiveServer, type AppCredentials, type ClientModule, type LiveServer } from './live-server.js';

/** One request through the proxy and the answer the server gave it. */
interface Exchange {
  method: string;
  url: string;
  requestHeaders: IncomingHttpHeaders;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the proxy sends back for an exchange: by default the server's answer as it came. */
type Rewrite = (exchange: Exchange) => Pick<Exchange, 'status' | 'headers' | 'body'>;
const asIs: Rewrite = (exchange) => exchange;

interface Proxy {
  base: string;
  exchanges: Exchange[];
  rewrite: Rewrite;
  close(): void;
}

/** A proxy to `target` that buffers each answer, records it and sends what `rewrite` makes of it. */
async function startProxy(target: string): Promise<Proxy> {
  const proxy: Proxy = { base: '', exchanges: [], rewrite: asIs, close: () => {} };
  const server = createServer((req, res) => {
    const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (part: Buffer) => parts.push(part));
      answer.on('end', () => {
        const exchange = { method: req.method ?? 'GET', url: req.url ?? '/', requestHeaders: req.headers, status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(parts) };
        proxy.exchanges.push(exchange);
        const sent = proxy.rewrite(exchange);
        const { 'content-length': _length, 'transfer-encoding': _encoding, connection: _connection, ...headers } = sent.headers;
        res.writeHead(sent.status, { ...headers, 'content-length': String(sent.body.length) });
        res.end(sent.body);
      });
    });
    upstream.on('error', (error) => res.destroy(error));
    req.pipe(upstream);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  proxy.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return proxy;
}

const PASSWORD = 'member-password-1';
let live: LiveServer;
let sdk: ClientModule;
let proxy: Proxy;
let app: AppCredentials;
let publicKey: string;

const publicKeyOf = async (appId: string): Promise<string> => (await live.console('GET', `/applications/${appId}`)).body.response_signing_public_key as string;

beforeAll(async () => {
  live = await startLiveServer('gatehouse-sdk-signing');
  sdk = await live.loadClient();
  proxy = await startProxy(live.base);
  app = await live.createApp({ device_auth: false, default_allowed_sessions: 100 });
  publicKey = await publicKeyOf(app.id);
}, 180_000);

afterAll(async () => {
  proxy?.close();
  await live?.stop();
});

/** A client through the proxy pinning `keys` (the application's key by default). */
function pinned(keys: string | string[] = publicKey, credentials: AppCredentials = app, applicationId = credentials.id) {
  return new sdk.GatehouseClient({
    baseUrl: proxy.base,
    apiKey: credentials.api_key,
    apiSecret: credentials.api_secret,
    filesEncryptionKey: credentials.files_encryption_key,
    responseSigningPublicKeys: keys,
    applicationId,
  });
}

/** A password member with an hour of membership, made through a pinned client; that client, logged in. */
async function member(username: string, credentials: AppCredentials = app, keys: string | string[] = publicKey) {
  const client = pinned(keys, credentials);
  await client.signUp(username, PASSWORD);
  const [code] = await live.licenses(credentials.id, 1, 60);
  await client.activateLicense(code as string, { username, password: PASSWORD });
  await client.login({ username, password: PASSWORD });
  return client;
}

/** Runs `action` with the proxy sending what `rewrite` makes of each answer. */
async function withRewrite<T>(rewrite: Rewrite, action: () => Promise<T>): Promise<T> {
  proxy.rewrite = rewrite;
  try {
    return await action();
  } finally {
    proxy.rewrite = asIs;
  }
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error('resolved'),
    (error: unknown) => error,
  );
const lastExchange = (path: string) => proxy.exchanges.filter((e) => e.url.endsWith(path)).at(-1) as Exchange;
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe('a client that pins the key', () => {
  it('verifies every answer, errors included, and sends a fresh well-formed x-nonce with each request', async () => {
    const from = proxy.exchanges.length;
    const client = await member('verified');
    const context = await client.appContext();
    expect(context.user?.membership.is_active).toBe(true);
    expect(client.remainingTime()).toBeGreaterThan(59 * 60_000);
    // A signed refusal is a typed error as before.
    await expect(pinned().login({ username: 'verified', password: 'wrong-password-1' })).rejects.toBeInstanceOf(sdk.InvalidCredentialsError);
    await client.logout();

    const nonces = proxy.exchanges.slice(from).map((e) => e.requestHeaders['x-nonce']);
    expect(nonces).toHaveLength(6); // sign-up, activation, login, context, refused login, logout
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it('downloads plain and encrypted files whose bytes match the signed x-content-sha256', async () => {
    const plain = randomBytes(100_000);
    const secret = randomBytes(150_000);
    const plainFile = await live.uploadAndWait(app, 'plain.bin', new Blob([plain]), { isPublic: true, encrypted: false });
    const secretFile = await live.uploadAndWait(app, 'secret.bin', new Blob([secret]), { isPublic: true, encrypted: true });
    const client = await member('downloader');
    expect(sha(await readAll(await client.downloadFile(plainFile.id)))).toBe(sha(plain));
    expect(sha(await readAll(await client.downloadFile(secretFile.id)))).toBe(sha(secret));
    expect(lastExchange('/download').headers['x-content-sha256']).toBe(sha(lastExchange('/download').body));
    // A signed 404 for a file that is not there is the typed error.
    await expect(client.downloadFile('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(sdk.NotFoundError);
  });
});

describe('what a man in the middle tries', () => {
  it('one byte of a JSON answer rewritten (is_active): SignatureError, SIGNATURE_INVALID', async () => {
    const client = await member('rewritten');
    const flipActive: Rewrite = (e) => ({ ...e, body: Buffer.from(e.body.toString('utf8').replace('"is_active":true', '"is_active":false')) });
    const error = await withRewrite(flipActive, () => failure(client.appContext()));
    expect(lastExchange('/app_context').body.toString('utf8')).toContain('"is_active":true');
    expect(error).toBeInstanceOf(sdk.SignatureError);
    expect(error).toMatchObject({ code: 'SIGNATURE_INVALID', status: 200 });
    expect(client.lastAppContext).toBeNull(); // nothing of the refused answer was kept
  });

  it('a forged refusal (the status changed) and an answer stripped of its signature: SignatureError, not the refusal', async () => {
    const client = await member('forged');
    const banned: Rewrite = (e) => ({ ...e, status: 403, body: Buffer.from(JSON.stringify({ error_code: 'BANNED', message: 'banned' })) });
    expect(await withRewrite(banned, () => failure(client.appContext()))).toMatchObject({ name: 'SignatureError', code: 'SIGNATURE_INVALID', status: 403 });
    const stripped: Rewrite = (e) => {
      const { 'x-signature': _signature, ...headers } = e.headers;
      return { ...e, headers };
    };
    expect(await withRewrite(stripped, () => failure(client.appContext()))).toMatchObject({ name: 'SignatureError', code: 'SIGNATURE_MISSING' });
    expect((await client.appContext()).user?.username).toBe('forged');
  });

  it('an old answer replayed to a new request (another nonce): SignatureError', async () => {
    const client = await member('replayed');
    await client.appContext();
    const old = lastExchange('/app_context');
    const replay: Rewrite = (e) => (e.url.endsWith('/app_context') ? old : e);
    const error = await withRewrite(replay, () => failure(client.appContext()));
    expect(lastExchange('/app_context').requestHeaders['x-nonce']).not.toBe(old.requestHeaders['x-nonce']);
    expect(error).toBeInstanceOf(sdk.SignatureError);
    expect(error).toMatchObject({ code: 'SIGNATURE_INVALID' });
  });

  it('one byte of a download flipped: the stream ends with SignatureError (CONTENT_MISMATCH) once every byte is through', async () => {
    const content = randomBytes(100_000);
    const file = await live.uploadAndWait(app, 'flipped.bin', new Blob([content]), { isPublic: true, encrypted: false });
    const client = await member('flipped');
    const flipByte: Rewrite = (e) => {
      if (!e.url.endsWith('/download') || e.status !== 200) return e;
      const body = Buffer.from(e.body);
      body[50_000] = (body[50_000] as number) ^ 1;
      return { ...e, body };
    };
    let received = 0;
    const error = await withRewrite(flipByte, async () => {
      const stream = await client.downloadFile(file.id); // the headers verify: the signature is over the digest
      return failure(
        (async () => {
          for await (const part of stream) received += (part as Buffer).length;
        })(),
      );
    });
    expect(received).toBe(content.length);
    expect(error).toBeInstanceOf(sdk.SignatureError);
    expect(error).toMatchObject({ code: 'CONTENT_MISMATCH' });
  });
});

describe('the server’s clock', () => {
  it('a client whose clock runs 10 minutes ahead counts the time left from the signed x-timestamp', async () => {
    const client = await member('skewed');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 10 * 60_000);
      const context = await client.appContext();
      const left = client.remainingTime() as number;
      const signedAt = Number(lastExchange('/app_context').headers['x-timestamp']) * 1000;
      const activeUntil = Date.parse(context.user?.membership.active_until as string);
      // active_until less the signed time, less the moments since the answer on the monotonic clock.
      expect(left).toBeLessThanOrEqual(activeUntil - signedAt);
      expect(left).toBeGreaterThan(activeUntil - signedAt - 5_000);
      expect(left).toBeGreaterThan(59 * 60_000);
      // The device's clock would have said ten minutes less.
      expect(left - (activeUntil - Date.now())).toBeGreaterThan(10 * 60_000 - 5_000);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('keys', () => {
  it('a wrong pinned key, a wrong application id or an unsigned application: SignatureError on the first answer', async () => {
    const wrongKey = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string;
    const wrong = pinned(Buffer.from(wrongKey, 'base64url').toString('base64'));
    expect(await failure(wrong.signUp('wrong-key', PASSWORD))).toMatchObject({ name: 'SignatureError', code: 'SIGNATURE_INVALID', status: 201 });
    const otherApp = pinned(publicKey, app, '00000000-0000-4000-8000-000000000000');
    expect(await failure(otherApp.signUp('wrong-app', PASSWORD))).toMatchObject({ name: 'SignatureError', code: 'SIGNATURE_INVALID' });
    const unsigned = await live.createApp({ device_auth: false, response_signing: false });
    const pinnedToUnsigned = pinned(await publicKeyOf(unsigned.id), unsigned);
    expect(await failure(pinnedToUnsigned.signUp('unsigned', PASSWORD))).toMatchObject({ name: 'SignatureError', code: 'SIGNATURE_MISSING' });
  });

  it('options: keys need the application id, and each key must be 32 bytes', () => {
    const options = { baseUrl: proxy.base, apiKey: app.api_key, apiSecret: app.api_secret };
    expect(() => new sdk.GatehouseClient({ ...options, responseSigningPublicKeys: publicKey } as never)).toThrow(TypeError);
    expect(() => new sdk.GatehouseClient({ ...options, responseSigningPublicKeys: 'c2hvcnQ=', applicationId: app.id })).toThrow(RangeError);
    expect(() => new sdk.GatehouseClient({ ...options, responseSigningPublicKeys: [], applicationId: app.id })).toThrow(RangeError);
  });

  it('during a rotation both keys verify; once the previous one is dropped, only the new one does', async () => {
    const rotating = await live.createApp({ device_auth: false, default_allowed_sessions: 100 });
    const oldKey = await publicKeyOf(rotating.id);
    await member('rotating', rotating, oldKey);
    const rotated = await live.console('POST', `/applications/${rotating.id}/credentials/response_signing_key/rotate`);
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.response_signing_public_key as string;
    const login = (keys: string | string[]) => pinned(keys, rotating).login({ username: 'rotating', password: PASSWORD });

    for (const keys of [[oldKey], [newKey], [newKey, oldKey]]) await expect(login(keys)).resolves.toHaveProperty('session_token');
    expect(String(lastExchange('/auth/login').headers['x-signature']).split(' ')).toHaveLength(2);

    expect((await live.console('DELETE', `/applications/${rotating.id}/credentials/response_signing_key/previous`)).status).toBe(204);
    expect(await failure(login([oldKey]))).toMatchObject({ name: 'SignatureError', code: 'SIGNATURE_INVALID' });
    for (const keys of [[newKey], [oldKey, newKey]]) await expect(login(keys)).resolves.toHaveProperty('session_token');
  });
});
