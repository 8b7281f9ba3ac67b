// The SDK's entitlements (docs/sdk.md, "Entitlements"): read from the signed answers of login,
// app_context and activation, and from a verified license file, also in the offline fallback.
// The server runs in this process on the real time, listening on loopback (as in
// sdk-license-files.test.ts), so the SDK speaks real HTTP to it with pinned keys.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueConsoleToken } from '../../src/application/console/owners.js';
import { GatehouseClient } from '../../src/client/gatehouse-client.js';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { member } from '../support/integration.js';

let t: TestApp;
let base: string;
let work: string;

beforeEach(async () => {
  t = await startTestApp();
  t.clock.set(Date.now());
  const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
  if (owner === null) throw new Error('no ready-made owner');
  t.ownerToken = (await issueConsoleToken(t.deps, owner)).token;
  await t.http.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.http.server.address() as AddressInfo).port}`;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-sdk-entitlements-'));
});

afterEach(async () => {
  await t.close().catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

describe('SDK: entitlements', () => {
  it('follow the signed answers and the license file, online and offline', async () => {
    const app = await createApplication(t, { device_auth: false, default_allowed_sessions: 10 });
    const key = (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().response_signing_public_key as string;
    const u = await member(t, app, 'alice', 'alice-password-1', 60);
    const grant = (entitlements: string[]) => consoleRequest(t, 'PUT', `/applications/${app.id}/users/${u.id}/entitlements`, { entitlements });
    const licenseFile = join(work, 'license.gh');
    const client = new GatehouseClient({ baseUrl: base, apiKey: app.credentials.api_key, apiSecret: app.credentials.api_secret, responseSigningPublicKeys: [key], applicationId: app.id, licenseFile });
    expect(client.entitlements).toEqual([]);

    expect((await grant(['export', 'beta'])).statusCode).toBe(200);
    const session = await client.login({ username: 'alice', password: 'alice-password-1' });
    expect(session.membership).toMatchObject({ plan: null, entitlements: ['beta', 'export'], in_grace: false });
    expect(client.entitlements).toEqual(['beta', 'export']);
    expect(client.hasEntitlement('export')).toBe(true);
    expect(client.hasEntitlement('dlc')).toBe(false);

    await grant(['dlc']);
    await client.appContext();
    expect(client.entitlements).toEqual(['dlc']);

    await grant(['sync']);
    const [code] = (await createLicenses(t, app.id, 1, 60)) as [string];
    const activation = await client.activateLicense(code);
    expect(activation.membership.entitlements).toEqual(['sync']);
    expect(client.hasEntitlement('sync')).toBe(true);

    const issued = await client.requestLicenseFile();
    expect(issued.claims.entitlements).toEqual(['sync']);
    await grant([]);
    await client.appContext();
    expect(client.entitlements).toEqual([]);

    // The server gone, the stored file speaks for the user.
    await t.close();
    const offline = await client.appContext({ offlineFallback: true });
    expect(offline).toMatchObject({ offline: true, user: { membership: { entitlements: ['sync'], plan: null } } });
    expect(client.hasEntitlement('sync')).toBe(true);
  });
});
