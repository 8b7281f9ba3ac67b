// Acceptance (issue 43, point 3, heartbeats): the SDK's heartbeat keeps a session alive past two
// intervals, and a client that dies frees its seat by itself. The server runs in process on a
// listening socket with a clock the test moves (as sdk-session-expiry.test.ts); the SDK's timer
// is a schedule the test fires, so a beat happens exactly when the test says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatehouseClient, SessionExpiredError, SessionLimitReachedError, type GatehouseError } from '../../src/client/gatehouse-client.js';
import { manualSchedule } from './manual-schedule.js';
import { createApplication, createLicenses, listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.js';

const INTERVAL_S = 30;
const LEASE_MS = 2 * INTERVAL_S * 1000;
let t: TestApp;
let base: string;
let credentials: { api_key: string; api_secret: string };

beforeAll(async () => {
  t = await startTestApp();
  base = await listenOnLoopback(t);
  const app = await createApplication(t, { heartbeat_seconds: INTERVAL_S, session_ttl_seconds: 3600, device_auth: true, default_allowed_devices: 2, default_allowed_sessions: 1 });
  credentials = app.credentials;
  const [code] = await createLicenses(t, app.id, 1, 600);
  const client = clientOn('hw-1');
  await client.signUp('hank', 'hank-password-1');
  await client.activateLicense(code as string, { username: 'hank', password: 'hank-password-1' });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const clientOn = (hardwareId: string) => new GatehouseClient({ baseUrl: base, apiKey: credentials.api_key, apiSecret: credentials.api_secret, hardwareId });
const login = (client: GatehouseClient) => client.login({ username: 'hank', password: 'hank-password-1' });

describe('the SDK heartbeat', () => {
  it('keeps the session past two intervals, its seat held; a client that stops beating loses it, and its seat frees itself', async () => {
    const timer = manualSchedule();
    const lost: GatehouseError[] = [];
    const first = clientOn('hw-1');
    await login(first);
    const token = first.sessionToken;
    const lease = await first.startHeartbeat({ schedule: timer.schedule, onLeaseLost: (e) => lost.push(e) });
    expect(Date.parse(lease.lease_expires_at) - Date.parse(lease.server_time)).toBe(LEASE_MS);
    // Taken from the lease: a beat every interval.
    expect(timer.pendingDelay()).toBe(INTERVAL_S * 1000);

    for (let i = 0; i < 5; i++) {
      t.clock.advance(INTERVAL_S * 1000);
      await timer.fire();
    }
    // Five intervals on, the same session answers and holds the only seat.
    expect((await first.appContext()).user?.username).toBe('hank');
    expect(first.sessionToken).toBe(token);
    await expect(login(clientOn('hw-2'))).rejects.toBeInstanceOf(SessionLimitReachedError);

    // The client dies: its pending beat never runs. Two intervals later a second machine gets in.
    t.clock.advance(LEASE_MS);
    const second = clientOn('hw-2');
    await login(second);
    expect((await second.appContext()).user?.username).toBe('hank');

    // Were the first to wake, its beat is refused and reported once; the timer stops.
    await timer.fire();
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(SessionExpiredError);
    expect(timer.pendingDelay()).toBeNull();
    await second.logout();
  });

  it('stops on logout: no beat is pending, and the session is over', async () => {
    const timer = manualSchedule();
    const client = clientOn('hw-1');
    await login(client);
    await client.startHeartbeat({ schedule: timer.schedule });
    expect(timer.pendingDelay()).not.toBeNull();
    const token = client.sessionToken as string;
    await client.logout();
    expect(timer.pendingDelay()).toBeNull();
    const res = await fetch(`${base}/api/integration/heartbeat`, {
      method: 'POST',
      headers: { 'x-api-key': credentials.api_key, 'x-api-secret': credentials.api_secret, authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(401);
  });
});
