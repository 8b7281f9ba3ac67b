// Issue 43, acceptance 3 (refresh tokens): the client SDK, loaded from the compiled build, against
// a real server process. Login with remember keeps only the refresh token, in a 0600 file; a new
// client with only that file resumes; an ended session is renewed by a refresh, not a password.
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type AppCredentials, type ClientModule, type LiveServer } from './live-server.js';

const PASSWORD = 'remembered-password-1';
let live: LiveServer;
let sdk: ClientModule;
let app: AppCredentials;
let dir: string;

beforeAll(async () => {
  live = await startLiveServer('gatehouse-sdk-refresh');
  sdk = await live.loadClient();
  app = await live.createApp({ device_auth: true, default_allowed_devices: 1, default_allowed_sessions: 1 });
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-refresh-'));
}, 180_000);

afterAll(async () => {
  await live?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const clientFor = (hardwareId: string, refreshTokenStore?: string) =>
  new sdk.GatehouseClient({ baseUrl: live.base, apiKey: app.api_key, apiSecret: app.api_secret, hardwareId, ...(refreshTokenStore === undefined ? {} : { refreshTokenStore }) });

async function memberOn(hardwareId: string, username: string) {
  const client = clientFor(hardwareId);
  await client.signUp(username, PASSWORD);
  const [code] = await live.licenses(app.id, 1, null);
  await client.activateLicense(code as string, { username, password: PASSWORD });
}

describe('staying signed in with a refresh token file', () => {
  it('keeps only the refresh token, mode 0600, and a restarted client resumes from the file alone', async () => {
    await memberOn('hw-a', 'alice');
    const file = join(dir, 'alice.token');
    const first = clientFor('hw-a', file);
    const session = await first.login({ username: 'alice', password: PASSWORD }, { remember: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const kept = readFileSync(file, 'utf8');
    expect(kept.trim()).toBe(session.refresh_token);
    expect(kept).not.toContain(PASSWORD);
    expect(kept).not.toContain('alice');

    // The process ends; a new one has the file and nothing else.
    const restarted = clientFor('hw-a', file);
    const context = await restarted.appContext();
    expect(context.user?.username).toBe('alice');
    const rotated = readFileSync(file, 'utf8').trim();
    expect(rotated).not.toBe(session.refresh_token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The first client's session was the family's: it ended with the refresh.
    const stale = await fetch(`${live.base}/api/integration/app_context`, { headers: { 'x-api-key': app.api_key, 'x-api-secret': app.api_secret, authorization: `Bearer ${session.session_token}` } });
    expect(((await stale.json()) as { error_code: string }).error_code).toBe('SESSION_EXPIRED');
  });

  it('renews an ended session by a refresh, and resume() opens one explicitly', async () => {
    await memberOn('hw-b', 'bob');
    const file = join(dir, 'bob.token');
    const client = clientFor('hw-b', file);
    await client.login({ username: 'bob', password: PASSWORD }, { remember: true });
    const before = client.sessionToken;
    // Another login on the same machine replaces the session: the client's token answers SESSION_EXPIRED.
    await clientFor('hw-b').login({ username: 'bob', password: PASSWORD });
    expect((await client.appContext()).user?.username).toBe('bob');
    expect(client.sessionToken).not.toBe(before);
    expect(readFileSync(file, 'utf8')).not.toContain(PASSWORD);

    const other = clientFor('hw-b', file);
    const resumed = await other.resume();
    expect(resumed?.membership.is_active).toBe(true);
    expect(await clientFor('hw-b', join(dir, 'nobody.token')).resume()).toBeNull();
  });

  it('a reused token is refused and forgotten; logout ends the family and empties the store', async () => {
    await memberOn('hw-c', 'carol');
    const file = join(dir, 'carol.token');
    const client = clientFor('hw-c', file);
    const session = await client.login({ username: 'carol', password: PASSWORD }, { remember: true });
    await client.resume();
    // The first token is spent: a thief presenting it revokes the family.
    const thief = await fetch(`${live.base}/api/integration/auth/refresh`, {
      method: 'POST',
      headers: { 'x-api-key': app.api_key, 'x-api-secret': app.api_secret, 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: session.refresh_token, hardware_id: 'hw-c' }),
    });
    expect(((await thief.json()) as { error_code: string }).error_code).toBe('REFRESH_REUSED');
    const error = await clientFor('hw-c', file)
      .resume()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.RefreshRefusedError);
    expect(existsSync(file)).toBe(false);

    await client.login({ username: 'carol', password: PASSWORD }, { remember: true });
    const kept = readFileSync(file, 'utf8').trim();
    await client.logout();
    expect(existsSync(file)).toBe(false);
    const after = await fetch(`${live.base}/api/integration/auth/refresh`, {
      method: 'POST',
      headers: { 'x-api-key': app.api_key, 'x-api-secret': app.api_secret, 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: kept, hardware_id: 'hw-c' }),
    });
    expect(((await after.json()) as { error_code: string }).error_code).toBe('REFRESH_INVALID');
  });
});
