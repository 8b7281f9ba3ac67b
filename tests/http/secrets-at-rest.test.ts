import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { boot } from '../../src/boot.js';
import { readConfig } from '../../src/config.js';
import { consoleRequest, createApplication, createLicenses, startTestApp, testArgon2, type TestApp } from '../support/test-app.js';
import { bearer, call, member, token } from '../support/integration.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

/** Every byte SQLite holds for this database: the file plus its write-ahead log. */
function databaseBytes(path: string): Buffer {
  const parts = [path, `${path}-wal`].filter(existsSync).map((p) => readFileSync(p));
  return Buffer.concat(parts);
}

it('no issued secret or password is stored in plain text', async () => {
  const secrets: string[] = [t.ownerToken, 'owner-password-1'];
  const app = await createApplication(t, { device_auth: true, legacy_auth: true });
  secrets.push(app.credentials.api_secret, app.credentials.admin_api_key, app.credentials.files_encryption_key, app.credentials.request_signing_key);
  const rotated = await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/api_secret/rotate`);
  secrets.push(rotated.json().api_secret);
  secrets.push((await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/request_signing_key/rotate`)).json().request_signing_key);
  // The response signing key's private half, in both base64 forms.
  const sealed = (await t.store.findApplication(app.id))?.signing.response?.privateKeySealed ?? '';
  const seed = Buffer.from(t.deps.secrets.open(sealed), 'base64url');
  expect(seed).toHaveLength(32);
  secrets.push(seed.toString('base64url'), seed.toString('base64'));
  const headers = { 'x-api-key': app.credentials.api_key, 'x-api-secret': rotated.json().api_secret };
  const live = { ...app, headers };

  const u = await member(t, live, 'alice', 'alice-secret-password', 60, { hardware_id: 'HW-1' });
  secrets.push('alice-secret-password', u.code);
  const codes = await createLicenses(t, app.id, 5, 60);
  secrets.push(...codes);
  const lc = await call(t, live, 'POST', '/sign_up_with_license_code', { code: codes[0], hardware_id: 'HW-2' });
  expect(lc.statusCode).toBe(201);
  const tok = await token(t, live, { username: 'alice', password: 'alice-secret-password' }, { hardware_id: 'HW-1' });
  secrets.push(tok);
  expect((await call(t, live, 'GET', '/app_context', undefined, { headers: { ...bearer(tok), 'x-hardware-id': 'HW-1' } })).statusCode).toBe(200);
  expect((await call(t, live, 'GET', '/app_context', undefined, { headers: { 'x-api-license-code': codes[0] as string, 'x-hardware-id': 'HW-2' } })).statusCode).toBe(200);
  // Refresh tokens are kept as digests only: the one a login issues and the one a refresh answers.
  const remembered = await call(t, live, 'POST', '/auth/login', { credentials: { username: 'alice', password: 'alice-secret-password' }, hardware_id: 'HW-1', remember: true });
  const kept = remembered.json<{ refresh_token: string }>().refresh_token;
  const next = await call(t, live, 'POST', '/auth/refresh', { refresh_token: kept, hardware_id: 'HW-1' });
  expect(next.statusCode, next.body).toBe(200);
  secrets.push(kept, next.json<{ refresh_token: string; session_token: string }>().refresh_token);
  const refreshedSession = next.json<{ session_token: string }>().session_token;
  expect((await call(t, live, 'GET', '/app_context', undefined, { headers: bearer(refreshedSession) })).statusCode).toBe(200);
  const login = await t.inject({ method: 'POST', url: '/api/console/login', payload: { email: 'owner@example.com', password: 'owner-password-1' } });
  secrets.push(login.json().token);
  await consoleRequest(t, 'POST', `/applications/${app.id}/bans`, { type: 'license', value: codes[1] });
  // Webhook signing secrets, the first and its rotation, whole and as their key bytes' base64.
  const hook = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: 'https://93.184.216.34/hook', events: ['*'] });
  const hookSecrets = [hook.json().secret as string, (await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${hook.json().endpoint.id}/rotate_secret`)).json().secret as string];
  secrets.push(...hookSecrets, ...hookSecrets.map((s) => s.slice('whsec_'.length)));

  const dump = databaseBytes(t.dbPath);
  expect(dump.length).toBeGreaterThan(0);
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(7);
    // Codes are searched in every form a person might type them.
    for (const form of [secret, secret.replace(/-/g, ''), secret.toLowerCase()]) {
      expect(dump.includes(Buffer.from(form, 'utf8')), `found ${form.slice(0, 12)}… in the database`).toBe(false);
    }
  }
  // Sanity: the scan does find what is stored in plain text.
  expect(dump.includes(Buffer.from(app.credentials.api_key, 'utf8'))).toBe(true);
});

it("a fresh data folder, its SQLite database and the database's -wal and -shm are readable by the owner only", async () => {
  const parent = mkdtempSync(join(tmpdir(), 'gatehouse-modes-'));
  // A usual umask would leave 0755 folders and 0644 files: the modes must not depend on it.
  const umask = process.umask(0o022);
  try {
    const dataDir = join(parent, 'data');
    // SQLite whatever backend the suite runs on: the files it makes are what is checked.
    const booted = await boot(readConfig({ GATEHOUSE_DATA_DIR: dataDir }), { argon2: testArgon2 });
    try {
      const db = join(dataDir, 'gatehouse.db');
      const modes = Object.fromEntries([dataDir, db, `${db}-wal`, `${db}-shm`, join(dataDir, 'master.key')].map((p) => [p.slice(parent.length), statSync(p).mode & 0o777]));
      expect(modes).toEqual({
        '/data': 0o700,
        '/data/gatehouse.db': 0o600,
        '/data/gatehouse.db-wal': 0o600,
        '/data/gatehouse.db-shm': 0o600,
        '/data/master.key': 0o600,
      });
    } finally {
      await booted.close();
    }
  } finally {
    process.umask(umask);
    rmSync(parent, { recursive: true, force: true });
  }
});
