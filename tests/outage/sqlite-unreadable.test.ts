// Issue 39, item 2, on SQLite: with the database unreadable, integration answers are 503
// SERVICE_UNAVAILABLE with Retry-After, signed by the keys of an application this process has
// authenticated, and the SDK falls back to its stored license file. The driver's statements fail
// here as a failing disk makes them fail (SQLITE_IOERR); nothing in the server is told.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueConsoleToken } from '../../src/application/console/owners.js';
import { GatehouseClient, GatehouseError } from '../../src/client/gatehouse-client.js';
import { bearer, call, expectError, member, token, type TestApplication } from '../support/integration.js';
import { fieldsOf, newNonce, verifies } from '../support/response-verifier.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';

/** better-sqlite3's statements and connections, made to fail with `code` while `failing` holds. */
function faultyDriver() {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  const connection = Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  let code: string | null = null;
  const originals: Array<[Record<string, (...args: unknown[]) => unknown>, string, (...args: unknown[]) => unknown]> = [];
  for (const [target, names] of [
    [statement, ['run', 'get', 'all', 'iterate']],
    [connection, ['exec', 'prepare', 'pragma']],
  ] as const) {
    for (const name of names) {
      const original = target[name]!;
      originals.push([target, name, original]);
      target[name] = function (this: unknown, ...args: unknown[]) {
        if (code !== null) throw new Database.SqliteError(code === 'SQLITE_ERROR' ? 'no such table: nowhere' : 'disk I/O error', code);
        return original.apply(this, args);
      };
    }
  }
  return {
    fail: (with_: string) => void (code = with_),
    heal: () => void (code = null),
    restore: () => {
      code = null;
      for (const [target, name, original] of originals) target[name] = original;
    },
  };
}

let t: TestApp;
let driver: ReturnType<typeof faultyDriver>;
let app: TestApplication & { credentials: { api_key: string; api_secret: string } };
let publicKey: string;

beforeEach(async () => {
  driver = faultyDriver();
  t = await startTestApp();
  app = await createApplication(t);
  publicKey = (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().response_signing_public_key as string;
});

afterEach(async () => {
  driver.restore();
  await t.close();
});

/** A request as a pinned client sends it: with a fresh x-nonce. */
async function signedCall(method: 'GET' | 'POST', path: string, payload?: unknown, headers: Record<string, string> = {}) {
  const nonce = newNonce();
  const res = await call(t, app, method, path, payload, { headers: { 'x-nonce': nonce, ...headers } });
  return { res, sent: { method, url: `/api/integration${path}`, nonce } };
}

function expectUnavailable(res: LightMyRequestResponse) {
  expectError(res, 503, 'SERVICE_UNAVAILABLE');
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body).not.toMatch(/sqlite|I\/O/i);
}

describe('integration requests while SQLite cannot be read', () => {
  it('app_context and login answer 503 SERVICE_UNAVAILABLE with Retry-After, signed by the pinned key', async () => {
    const u = await member(t, app, 'alice', undefined, 60, { hardware_id: 'HW-1' });
    const session = await token(t, app, { username: 'alice', password: u.password }, { hardware_id: 'HW-1' });
    expect((await signedCall('GET', '/app_context', undefined, bearer(session))).res.statusCode).toBe(200);

    driver.fail('SQLITE_IOERR_READ');
    const context = await signedCall('GET', '/app_context', undefined, bearer(session));
    expectUnavailable(context.res);
    expect(verifies(context.res, fieldsOf(context.res, context.sent, app.id), publicKey)).toBe(true);

    const login = await signedCall('POST', '/auth/login', { credentials: { username: 'alice', password: u.password }, hardware_id: 'HW-1' });
    expectUnavailable(login.res);
    expect(verifies(login.res, fieldsOf(login.res, login.sent, app.id), publicKey)).toBe(true);

    driver.heal();
    expect((await signedCall('GET', '/app_context', undefined, bearer(session))).res.statusCode).toBe(200);
  });

  it('a file that cannot be opened or a lock held too long is the same outage', async () => {
    expect((await signedCall('POST', '/auth/login', { credentials: { username: 'nobody', password: 'wrong password 1' } })).res.statusCode).toBe(401);
    for (const code of ['SQLITE_CANTOPEN', 'SQLITE_BUSY', 'SQLITE_IOERR_SHORT_READ']) {
      driver.fail(code);
      expectUnavailable((await signedCall('POST', '/auth/login', { credentials: { username: 'nobody', password: 'wrong password 1' } })).res);
    }
  });

  it('signs nothing for a wrong secret or an application this process has not authenticated', async () => {
    const other = await createApplication(t);
    // Authenticated as the application, refused as a user: the process now knows the application.
    expect((await signedCall('GET', '/app_context')).res.statusCode).toBe(401);
    driver.fail('SQLITE_IOERR_READ');

    const wrongSecret = await signedCall('GET', '/app_context', undefined, { 'x-api-secret': `${app.credentials.api_secret}x` });
    expectUnavailable(wrongSecret.res);
    expect(wrongSecret.res.headers['x-signature']).toBeUndefined();

    const unseen = await call(t, other, 'GET', '/app_context', undefined, { headers: { 'x-nonce': newNonce() } });
    expectUnavailable(unseen);
    expect(unseen.headers['x-signature']).toBeUndefined();
  });

  it('a statement failing for another reason is still a 500, not an outage', async () => {
    expect((await signedCall('GET', '/app_context')).res.statusCode).toBe(401);
    driver.fail('SQLITE_ERROR');
    const res = (await signedCall('GET', '/app_context')).res;
    expectError(res, 500, 'INTERNAL_ERROR');
    expect(res.headers['retry-after']).toBeUndefined();
  });
});

describe('the SDK while SQLite cannot be read', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'gatehouse-outage-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('appContext({offlineFallback: true}) answers from the stored license file, the 503 its cause', async () => {
    // The SDK checks files against the real clock.
    t.clock.set(Date.now());
    const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
    if (owner === null) throw new Error('no ready-made owner');
    t.ownerToken = (await issueConsoleToken(t.deps, owner)).token;
    await t.http.listen({ port: 0, host: '127.0.0.1' });
    const u = await member(t, app, 'bob', undefined, 30 * 24 * 60, { hardware_id: 'HW-1' });
    const client = new GatehouseClient({
      baseUrl: `http://127.0.0.1:${(t.http.server.address() as AddressInfo).port}`,
      apiKey: app.credentials.api_key,
      apiSecret: app.credentials.api_secret,
      responseSigningPublicKeys: [publicKey],
      applicationId: app.id,
      hardwareId: 'HW-1',
      licenseFile: join(work, 'license.txt'),
    });
    await client.login({ username: 'bob', password: u.password });
    await client.requestLicenseFile();

    driver.fail('SQLITE_IOERR_READ');
    const offline = await client.appContext({ offlineFallback: true });
    expect(offline).toMatchObject({ offline: true, user: { username: 'bob' } });
    const cause = (offline as { cause: unknown }).cause;
    expect(cause).toBeInstanceOf(GatehouseError);
    expect(cause).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 5 });

    driver.heal();
    expect((await client.appContext({ offlineFallback: true })).offline).toBeUndefined();
  });
});
