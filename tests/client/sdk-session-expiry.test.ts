// Acceptance (issue 7, point 1), the letter of "re-login after expiry": a session that reaches the
// application's session_ttl_seconds, not one revoked by the owner. The server runs in process on
// a listening socket with a clock the test moves, so the 30-second minimum TTL passes at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatehouseClient } from '../../src/client/gatehouse-client.js';
import { createApplication, createLicenses, listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.js';

const TTL_SECONDS = 30;
let t: TestApp;
let base: string;
let credentials: { api_key: string; api_secret: string };

beforeAll(async () => {
  t = await startTestApp();
  base = await listenOnLoopback(t);
  const app = await createApplication(t, { session_ttl_seconds: TTL_SECONDS, device_auth: true });
  credentials = app.credentials;
  const [code] = await createLicenses(t, app.id, 1, 60);
  const client = new GatehouseClient({ baseUrl: base, apiKey: credentials.api_key, apiSecret: credentials.api_secret, hardwareId: 'hw-1' });
  await client.signUp('erin', 'erin-password-1');
  await client.activateLicense(code as string, { username: 'erin', password: 'erin-password-1' });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** What the server answers a raw request with `token` now. */
async function contextStatus(token: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${base}/api/integration/app_context`, {
    headers: { 'x-api-key': credentials.api_key, 'x-api-secret': credentials.api_secret, authorization: `Bearer ${token}` },
  });
  return { status: res.status, code: res.ok ? undefined : ((await res.json()) as { error_code: string }).error_code };
}

describe('a session that expires by its TTL', () => {
  it('is renewed by one login of its own, and the request is answered', async () => {
    const client = new GatehouseClient({ baseUrl: base, apiKey: credentials.api_key, apiSecret: credentials.api_secret, hardwareId: 'hw-1' });
    await client.login({ username: 'erin', password: 'erin-password-1' });
    const first = client.sessionToken as string;
    const before = await client.appContext();
    expect(before.user?.username).toBe('erin');
    const leftBefore = client.remainingTime() as number;

    t.clock.advance((TTL_SECONDS + 1) * 1000);
    // The old token has really expired (nothing revoked it): the server says so to a raw request.
    expect(await contextStatus(first)).toEqual({ status: 401, code: 'SESSION_EXPIRED' });

    const after = await client.appContext();
    expect(after.user?.username).toBe('erin');
    expect(client.sessionToken).not.toBe(first);
    expect(await contextStatus(client.sessionToken as string)).toEqual({ status: 200, code: undefined });
    // Remaining time follows the server's clock (31 s later), not this machine's. Each reading
    // also subtracts the moments since its own answer on the monotonic clock, so the two differ
    // from 31 s by that jitter (either way), never by anything near a second.
    const leftAfter = client.remainingTime() as number;
    expect(Math.abs(leftBefore - leftAfter - (TTL_SECONDS + 1) * 1000)).toBeLessThan(1000);
  });
});
