// The SDK signing its requests (docs/sdk.md, Client SDK, Request signing) against a real server process
// whose application has request_signing on. fetch is watched, so each request the SDK sent can be
// signed again by the signer written apart from the server (tests/support/request-signer.ts).
import { randomBytes, createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { signRequest } from '../support/request-signer.js';
import { startLiveServer, type AppCredentials, type ClientModule, type LiveServer } from './live-server.js';

const PASSWORD = 'member-password-1';
let live: LiveServer;
let sdk: ClientModule;
let app: AppCredentials;
let publicKey: string;

beforeAll(async () => {
  live = await startLiveServer('gatehouse-sdk-request-signing');
  sdk = await live.loadClient();
  app = await live.createApp({ device_auth: false, default_allowed_sessions: 100, request_signing: true });
  publicKey = (await live.console('GET', `/applications/${app.id}`)).body.response_signing_public_key as string;
}, 180_000);

afterAll(async () => {
  await live?.stop();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** One request the SDK sent, as fetch was given it, and the status it got. */
interface Sent {
  method: string;
  pathAndQuery: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  status: number;
}

/** Records every integration request sent from now on (the SDK's; the test's console calls are left out). */
function watchFetch(): Sent[] {
  const sent: Sent[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const response = await realFetch(input, init);
    if (!url.pathname.startsWith('/api/integration/')) return response;
    const body = init?.body === undefined || init.body === null ? undefined : Buffer.from(init.body as Uint8Array);
    sent.push({ method: init?.method ?? 'GET', pathAndQuery: `${url.pathname}${url.search}`, headers: { ...(init?.headers as Record<string, string>) }, body, status: response.status });
    return response;
  });
  return sent;
}

type Options = { requestSigningKey?: string; pinned?: boolean };

function client({ requestSigningKey = app.request_signing_key, pinned = true }: Options = {}) {
  const connection = {
    baseUrl: live.base,
    apiKey: app.api_key,
    apiSecret: app.api_secret,
    filesEncryptionKey: app.files_encryption_key,
    ...(requestSigningKey === '' ? {} : { requestSigningKey }),
  };
  return new sdk.GatehouseClient(pinned ? { ...connection, responseSigningPublicKeys: publicKey, applicationId: app.id } : connection);
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error('resolved'),
    (error: unknown) => error,
  );
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** Every method of the SDK, in order, for a new user `username`; the downloaded bytes. */
async function everyMethod(c: InstanceType<ClientModule['GatehouseClient']>, username: string, fileId: string): Promise<Buffer> {
  await c.signUp(username, PASSWORD);
  const [code] = await live.licenses(app.id, 1, 60);
  await c.activateLicense(code as string, { username, password: PASSWORD });
  await c.login({ username, password: PASSWORD });
  expect((await c.appContext()).user?.membership.is_active).toBe(true);
  const bytes = await readAll(await c.downloadFile(fileId));
  await c.logout();
  return bytes;
}

describe('a client with the request signing key', () => {
  it('signs every method’s request over the path, api key, credential headers and body bytes it sent, with pinned keys and without', async () => {
    const content = randomBytes(50_000);
    const file = await live.uploadAndWait(app, 'signed.bin', new Blob([content]), { isPublic: true, encrypted: true });
    for (const pinned of [true, false]) {
      const sent = watchFetch();
      expect(sha(await everyMethod(client({ pinned }), `signer-${pinned}`, file.id))).toBe(sha(content));
      // sign-up, activation, login, context, download, logout: each signed once and accepted.
      expect(sent.map((s) => s.status)).toEqual([201, 200, 200, 200, 200, 204]);
      for (const s of sent) {
        expect(s.headers['x-timestamp']).toMatch(/^\d+$/);
        expect(s.headers['x-nonce']).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
        const again = signRequest(
          {
            method: s.method,
            url: s.pathAndQuery,
            headers: s.headers,
            ...(s.body === undefined ? {} : { body: s.body }),
            timestamp: s.headers['x-timestamp'] as string,
            nonce: s.headers['x-nonce'] as string,
          },
          app.request_signing_key,
        );
        expect(s.headers['x-signature']).toBe(again);
      }
      expect(sent.some((s) => s.headers['authorization']?.startsWith('Bearer '))).toBe(true);
      expect(new Set(sent.map((s) => s.headers['x-nonce'])).size).toBe(sent.length);
      vi.restoreAllMocks();
    }
  });

  it('a device clock 10 minutes off: the first request is refused SIGNATURE_EXPIRED and signed again on the server’s signed time, the next ones go through at once', async () => {
    const c = client();
    const sent = watchFetch();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - 10 * 60_000);
    await c.signUp('late-clock', PASSWORD);
    await c.login({ username: 'late-clock', password: PASSWORD }).catch((error: unknown) => expect(error).toBeInstanceOf(sdk.MembershipInactiveError));
    expect(sent.map((s) => s.status)).toEqual([401, 201, 403]);
    const [refused, retried] = sent as [Sent, Sent];
    expect(retried.headers['x-nonce']).not.toBe(refused.headers['x-nonce']);
    const skew = Number(retried.headers['x-timestamp']) - Number(refused.headers['x-timestamp']);
    expect(skew).toBeGreaterThan(10 * 60 - 5);
    expect(skew).toBeLessThan(10 * 60 + 5);
  });

  it('an application with response_signing off: the clock is learnt from the Date header instead', async () => {
    const unsigned = await live.createApp({ device_auth: false, response_signing: false, request_signing: true });
    const c = new sdk.GatehouseClient({ baseUrl: live.base, apiKey: unsigned.api_key, apiSecret: unsigned.api_secret, requestSigningKey: unsigned.request_signing_key });
    const sent = watchFetch();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10 * 60_000);
    await c.signUp('early-clock', PASSWORD);
    expect(sent.map((s) => s.status)).toEqual([401, 201]);
  });
});

describe('a client the server refuses', () => {
  it('without the key: RequestSignatureRefusedError SIGNATURE_REQUIRED (a signed refusal, so typed), sent once', async () => {
    const sent = watchFetch();
    const error = await failure(client({ requestSigningKey: '' }).signUp('unsigned', PASSWORD));
    expect(error).toBeInstanceOf(sdk.RequestSignatureRefusedError);
    expect(error).toBeInstanceOf(sdk.GatehouseError);
    expect(error).toMatchObject({ status: 401, code: 'SIGNATURE_REQUIRED' });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['x-signature']).toBeUndefined();
  });

  it('with a wrong key: SIGNATURE_INVALID, sent once; a malformed key is refused up front', async () => {
    const sent = watchFetch();
    const error = await failure(client({ requestSigningKey: randomBytes(32).toString('base64') }).login({ username: 'nobody', password: PASSWORD }));
    expect(error).toBeInstanceOf(sdk.RequestSignatureRefusedError);
    expect(error).toMatchObject({ status: 401, code: 'SIGNATURE_INVALID' });
    expect(sent).toHaveLength(1);
    for (const bad of ['c2hvcnQ=', `${randomBytes(32).toString('base64')}x`, randomBytes(32).toString('base64url')]) {
      expect(() => client({ requestSigningKey: bad }), bad).toThrow(RangeError);
    }
  });
});
