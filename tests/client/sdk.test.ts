// Acceptance (issue 7, point 1): the client SDK (`gatehouse/client`, loaded from the compiled
// build through package.json's exports) against a real server process on SQLite: every method,
// the automatic re-login when a session ends, typed errors, and encrypted downloads decrypted as
// a stream (tampering and truncation raise; a 50 MiB file streams in bounded memory).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type AppCredentials, type ClientModule, type LiveServer } from './live-server.js';

const MiB = 1024 * 1024;
let live: LiveServer;
let sdk: ClientModule;
let app: AppCredentials;

beforeAll(async () => {
  live = await startLiveServer('gatehouse-sdk');
  sdk = await live.loadClient();
  app = await live.createApp({ device_auth: true, default_allowed_devices: 1, default_allowed_sessions: 1 });
  const res = await live.console('PUT', `/applications/${app.id}/variables/latest_version`, { value: '2.0.1', is_public: true });
  expect(res.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await live?.stop();
});

const clientFor = (hardwareId: string, credentials: AppCredentials = app, withKey = true) =>
  new sdk.GatehouseClient({
    baseUrl: `${live.base}/`,
    apiKey: credentials.api_key,
    apiSecret: credentials.api_secret,
    hardwareId,
    ...(withKey ? { filesEncryptionKey: credentials.files_encryption_key } : {}),
  });

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** A password member with `minutes` of membership, logged in on its own device; its id. */
async function member(username: string, minutes: number | null = 60, credentials: AppCredentials = app) {
  const client = clientFor(`hw-${username}`, credentials);
  const summary = await client.signUp(username, 'member-password-1');
  const [code] = await live.licenses(credentials.id, 1, minutes);
  await client.activateLicense(code as string, { username, password: 'member-password-1' });
  await client.login({ username, password: 'member-password-1' });
  return { client, id: summary.id };
}

describe('accounts and the application context', () => {
  it('signUp, activateLicense, login, appContext and remainingTime from server_time', async () => {
    const client = clientFor('hw-alice');
    const summary = await client.signUp('alice', 'alice-password-1');
    expect(summary).toMatchObject({ username: 'alice', membership: { is_active: false, is_lifetime: false, active_until: null } });
    await expect(client.login({ username: 'alice', password: 'alice-password-1' })).rejects.toBeInstanceOf(sdk.MembershipInactiveError);

    const [code] = await live.licenses(app.id, 1, 600);
    const adjustment = await client.activateLicense(code as string, { username: 'alice', password: 'alice-password-1' });
    expect(adjustment).toMatchObject({ type: 'license', minutes: 600, grants_lifetime_access: false });

    const session = await client.login({ username: 'alice', password: 'alice-password-1' });
    expect(session.session_token).toBe(client.sessionToken);
    expect(client.remainingTime()).toBeNull(); // no context read yet
    const context = await client.appContext();
    expect(context.application.variables).toEqual([{ name: 'latest_version', value: '2.0.1' }]);
    expect(context.user).toMatchObject({ id: summary.id, username: 'alice', membership: { is_active: true, is_lifetime: false } });
    // active_until - server_time, on the server's clock: 600 minutes less the few moments since activation.
    const expected = Date.parse(context.user!.membership.active_until!) - Date.parse(context.server_time);
    const left = client.remainingTime()!;
    expect(left).toBeLessThanOrEqual(expected);
    expect(left).toBeGreaterThan(expected - 5_000);
    expect(left).toBeGreaterThan(599 * 60_000);

    // A second license, with the credentials of the current login.
    const [more] = await live.licenses(app.id, 1, 60);
    expect((await client.activateLicense(more as string)).minutes).toBe(60);
    await client.appContext();
    expect(client.remainingTime()!).toBeGreaterThan(659 * 60_000);
  });

  it('signUpWithLicense and login with the code; a lifetime membership has Infinity left', async () => {
    const client = clientFor('hw-lifetime');
    const [code] = await live.licenses(app.id, 1, null);
    const summary = await client.signUpWithLicense(code as string);
    expect(summary.username).toMatch(/^user-[0-9a-f]{16}$/);
    expect(summary.membership).toEqual({ is_active: true, is_lifetime: true, active_until: null, plan: null, entitlements: [], in_grace: false, grace_ends_at: null });
    await client.login({ code: code as string });
    const context = await client.appContext();
    expect(context.user?.username).toBe(summary.username);
    expect(client.remainingTime()).toBe(Number.POSITIVE_INFINITY);
    await expect(client.activateLicense('ANY')).rejects.toThrow(TypeError); // a code login has no password to activate with
  });

  it('logout ends the session and forgets the credentials: no silent re-login afterwards', async () => {
    const { client } = await member('logout-user');
    await client.appContext();
    const token = client.sessionToken as string;
    await client.logout();
    expect(client.sessionToken).toBeNull();
    await expect(client.appContext()).rejects.toBeInstanceOf(sdk.LoginRequiredError);
    // The old token is dead on the server too.
    const res = await fetch(`${live.base}/api/integration/app_context`, { headers: { 'x-api-key': app.api_key, 'x-api-secret': app.api_secret, authorization: `Bearer ${token}` } });
    expect(((await res.json()) as { error_code: string }).error_code).toBe('SESSION_EXPIRED');
    await client.logout(); // nothing to end: a no-op
  });
});

describe('session renewal', () => {
  it('logs in again by itself once the session is revoked, and retries the request', async () => {
    const { client, id } = await member('renew-user');
    const before = client.sessionToken;
    expect((await live.console('DELETE', `/applications/${app.id}/users/${id}/sessions`)).status).toBe(204);
    const context = await client.appContext();
    expect(context.user?.username).toBe('renew-user');
    expect(client.sessionToken).not.toBe(before);
  });

  it('parallel requests that meet SESSION_EXPIRED share one re-login (session cap 1 holds)', async () => {
    const { client, id } = await member('renew-parallel');
    expect((await live.console('DELETE', `/applications/${app.id}/users/${id}/sessions`)).status).toBe(204);
    const contexts = await Promise.all(Array.from({ length: 5 }, () => client.appContext()));
    expect(contexts.every((c) => c.user?.username === 'renew-parallel')).toBe(true);
  });

  it('a second SESSION_EXPIRED (the new session revoked before the retry) raises SessionExpiredError', async () => {
    const { client, id } = await member('renew-twice');
    expect((await live.console('DELETE', `/applications/${app.id}/users/${id}/sessions`)).status).toBe(204);
    // The owner revokes the sessions again the moment the re-login answers, before the retry.
    const realFetch = globalThis.fetch;
    let logins = 0;
    globalThis.fetch = async (input, init) => {
      const response = await realFetch(input, init);
      if ((input instanceof Request ? input.url : String(input)).endsWith('/api/integration/auth/login')) {
        logins += 1;
        await realFetch(`${live.base}/api/console/applications/${app.id}/users/${id}/sessions`, { method: 'DELETE', headers: { authorization: live.ownerAuth } });
      }
      return response;
    };
    try {
      const error = await client.appContext().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(sdk.SessionExpiredError);
      expect(error).toMatchObject({ status: 401, code: 'SESSION_EXPIRED' });
      expect(logins).toBe(1);
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});

describe('typed errors', () => {
  it('wrong credentials: InvalidCredentialsError (401)', async () => {
    await member('wrong-pass');
    const error = await clientFor('hw-wrong-pass')
      .login({ username: 'wrong-pass', password: 'not-the-password' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.InvalidCredentialsError);
    expect(error).toBeInstanceOf(sdk.GatehouseError);
    expect(error).toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS', name: 'InvalidCredentialsError' });
  });

  it('a timeout: the revoked session is renewed, and the login answers TimedOutError with until and reason', async () => {
    const { client, id } = await member('timed-out');
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect((await live.console('PUT', `/applications/${app.id}/users/${id}/timeout`, { until, reason: 'cool down' })).status).toBe(200);
    const error = await client.appContext().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.TimedOutError);
    const timedOut = error as InstanceType<ClientModule['TimedOutError']>;
    expect(timedOut.status).toBe(403);
    expect(timedOut.timedOutUntil).toBeInstanceOf(Date);
    expect(timedOut.timedOutUntil.toISOString()).toBe(until);
    expect(timedOut.reason).toBe('cool down');
  });

  it('a ban: BannedError (403)', async () => {
    // An application of its own: ban propagation also bans the test's address.
    const banning = await live.createApp({ device_auth: true });
    const { client, id } = await member('banned-user', 60, banning);
    expect((await live.console('POST', `/applications/${banning.id}/bans`, { type: 'user', value: id, reason: 'abuse' })).status).toBe(201);
    const error = await client.appContext().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.BannedError);
    expect(error).toMatchObject({ status: 403, code: 'BANNED' });
  });

  it('an inactive membership: MembershipInactiveError (403), also on a request with a live session', async () => {
    const { client, id } = await member('lapsing');
    expect((await live.console('POST', `/applications/${app.id}/adjustments`, { user_ids: [id], minutes: -120 })).status).toBe(200);
    const error = await client.appContext().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.MembershipInactiveError);
    expect(error).toMatchObject({ status: 403, code: 'MEMBERSHIP_INACTIVE' });
  });

  it('device and session limits, missing device, and unknown codes as the base class with field errors', async () => {
    await member('one-device');
    const other = clientFor('hw-another-device');
    await expect(other.login({ username: 'one-device', password: 'member-password-1' })).rejects.toBeInstanceOf(sdk.DeviceLimitReachedError);
    const noDevice = new sdk.GatehouseClient({ baseUrl: live.base, apiKey: app.api_key, apiSecret: app.api_secret });
    await expect(noDevice.login({ username: 'one-device', password: 'member-password-1' })).rejects.toBeInstanceOf(sdk.DeviceRequiredError);

    const open = await live.createApp({ device_auth: false, default_allowed_sessions: 1 });
    const first = clientFor('unused', open);
    const second = new sdk.GatehouseClient({ baseUrl: live.base, apiKey: open.api_key, apiSecret: open.api_secret });
    await first.signUp('capped', 'capped-password-1');
    const [code] = await live.licenses(open.id, 1, 60);
    await first.activateLicense(code as string, { username: 'capped', password: 'capped-password-1' });
    const bare = new sdk.GatehouseClient({ baseUrl: live.base, apiKey: open.api_key, apiSecret: open.api_secret });
    await bare.login({ username: 'capped', password: 'capped-password-1' });
    await expect(second.login({ username: 'capped', password: 'capped-password-1' })).rejects.toBeInstanceOf(sdk.SessionLimitReachedError);

    const taken = await first.signUp('capped', 'capped-password-1').catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(sdk.GatehouseError);
    expect((taken as Error).constructor).toBe(sdk.GatehouseError);
    expect(taken).toMatchObject({ status: 422, code: 'USERNAME_TAKEN' });
    const invalid = (await first.signUp('short-pass', 'x').catch((e: unknown) => e)) as InstanceType<ClientModule['GatehouseError']>;
    expect(invalid).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    expect(invalid.fieldErrors.map((f) => f.field)).toContain('password');

    const badApp = new sdk.GatehouseClient({ baseUrl: live.base, apiKey: open.api_key, apiSecret: 'gh_sk_wrong' });
    await expect(badApp.appContext()).rejects.toBeInstanceOf(sdk.InvalidApiCredentialsError);
  });
});

describe('downloads', () => {
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

  it('a plain file as stored; an encrypted one decrypted with the key, as stored without it', async () => {
    const plain = randomBytes(100_000);
    const secret = randomBytes(200_000);
    const plainFile = await live.uploadAndWait(app, 'plain.bin', new Blob([plain]), { isPublic: true, encrypted: false });
    const secretFile = await live.uploadAndWait(app, 'secret.bin', new Blob([secret]), { isPublic: false, encrypted: true });
    const { client } = await member('downloader');
    expect(sha(await readAll(await client.downloadFile(plainFile.id)))).toBe(sha(plain));
    // downloadFile reads the context itself when it does not list the file yet.
    expect(sha(await readAll(await client.downloadFile(secretFile.id)))).toBe(sha(secret));
    expect(client.lastAppContext?.application.files.find((f) => f.id === secretFile.id)?.is_encrypted).toBe(true);

    const keyless = clientFor('hw-downloader', app, false);
    await keyless.login({ username: 'downloader', password: 'member-password-1' });
    const stored = await readAll(await keyless.downloadFile(secretFile.id));
    expect(stored.subarray(0, 4).toString('ascii')).toBe('GHFE');
    expect(stored.length).toBe(17 + secret.length + 16 * Math.ceil(secret.length / 65536));

    await expect(client.downloadFile('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(sdk.NotFoundError);
  });

  it('a tampered encrypted file raises AUTHENTICATION_FAILED, a truncated one TRUNCATED', async () => {
    const content = randomBytes(300_000);
    const file = await live.uploadAndWait(app, 'tampered.bin', new Blob([content]), { isPublic: true, encrypted: true });
    const { client } = await member('tamper-check');
    const blob = join(live.dataDir, 'blobs', file.storage_path);
    const original = readFileSync(blob);
    const flipped = Buffer.from(original);
    flipped[100_000] = (flipped[100_000] as number) ^ 1;
    writeFileSync(blob, flipped);
    const tampered = await readAll(await client.downloadFile(file.id)).catch((e: unknown) => e);
    expect(tampered).toBeInstanceOf(sdk.EncryptedFileError);
    expect(tampered).toMatchObject({ code: 'AUTHENTICATION_FAILED' });

    writeFileSync(blob, original);
    expect(sha(await readAll(await client.downloadFile(file.id)))).toBe(sha(content));
    // A proxy that drops the last of the 5 chunks (300,000 bytes in 65,536-byte chunks) and ends
    // its answer cleanly, without Content-Length: only the format's final-chunk marker tells.
    const proxy = createServer((req, res) => {
      void (async () => {
        const parts: Buffer[] = [];
        for await (const part of req) parts.push(part as Buffer);
        const upstream = await fetch(`${live.base}${req.url}`, {
          method: req.method ?? 'GET',
          headers: req.headers as Record<string, string>,
          ...(parts.length > 0 ? { body: Buffer.concat(parts) } : {}),
        });
        const body = Buffer.from(await upstream.arrayBuffer());
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' });
        res.end(req.url?.endsWith('/download') ? body.subarray(0, 17 + 4 * (65_536 + 16)) : body);
      })();
    });
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
    try {
      const viaProxy = new sdk.GatehouseClient({
        baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        apiKey: app.api_key,
        apiSecret: app.api_secret,
        hardwareId: 'hw-tamper-check',
        filesEncryptionKey: app.files_encryption_key,
      });
      await viaProxy.login({ username: 'tamper-check', password: 'member-password-1' });
      const truncated = await readAll(await viaProxy.downloadFile(file.id)).catch((e: unknown) => e);
      expect(truncated).toBeInstanceOf(sdk.EncryptedFileError);
      expect(truncated).toMatchObject({ code: 'TRUNCATED' });
    } finally {
      proxy.close();
    }
  });

  it('a 50 MiB encrypted file streams through the decryptor to a hash with bounded memory', async () => {
    const content = randomBytes(50 * MiB);
    const expected = sha(content);
    const file = await live.uploadAndWait(app, 'big.bin', new Blob([content]), { isPublic: true, encrypted: true });
    const { client } = await member('big-downloader');
    await client.appContext();

    const start = process.memoryUsage();
    let peakRss = start.rss;
    let peakArrayBuffers = start.arrayBuffers;
    const sample = () => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakArrayBuffers = Math.max(peakArrayBuffers, now.arrayBuffers);
    };
    const timer = setInterval(sample, 10);
    const hash = createHash('sha256');
    let bytes = 0;
    let chunks = 0;
    const started = performance.now();
    try {
      for await (const part of await client.downloadFile(file.id)) {
        hash.update(part as Buffer);
        bytes += (part as Buffer).length;
        if (++chunks % 64 === 0) sample();
      }
    } finally {
      clearInterval(timer);
    }
    sample();
    const seconds = (performance.now() - started) / 1000;
    expect(bytes).toBe(content.length);
    expect(hash.digest('hex')).toBe(expected);
    const rssGrowth = (peakRss - start.rss) / MiB;
    const abGrowth = (peakArrayBuffers - start.arrayBuffers) / MiB;
    console.log(
      `SDK decrypting download of 50 MiB: ${seconds.toFixed(2)} s (${(50 / seconds).toFixed(0)} MiB/s), peak RSS growth ${rssGrowth.toFixed(1)} MiB, peak arrayBuffers growth ${abGrowth.toFixed(1)} MiB`,
    );
    // A client that buffered the file would hold its 50 MiB (and more, decrypted); a streaming
    // one holds the chunks in flight plus whatever the collector has not freed yet, which under a
    // loaded run once came to 32.1 MiB.
    expect(rssGrowth).toBeLessThan(40);
    expect(abGrowth).toBeLessThan(40);
  }, 120_000);
});
