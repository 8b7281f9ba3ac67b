// Acceptance (issue 16, point 3): `gatehouse license-file verify` of the compiled CLI verifies a
// license file the admin API of a real server issued, offline (no --url, no admin key), and says
// why it refuses one: another machine, another key, another application, an altered file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type AppCredentials, type LiveServer } from '../client/live-server.js';
import { runGatehouse, type CliRun } from './run-cli.js';

let live: LiveServer;
let app: AppCredentials;
let other: AppCredentials;
let publicKey: string;
let otherKey: string;
let work: string;
let issued: { license_file: string; expires_at: string };

beforeAll(async () => {
  live = await startLiveServer('gatehouse-cli-license');
  app = await live.createApp({ default_allowed_devices: 2 });
  other = await live.createApp();
  publicKey = (await live.console('GET', `/applications/${app.id}`)).body.response_signing_public_key;
  otherKey = (await live.console('GET', `/applications/${other.id}`)).body.response_signing_public_key;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-cli-license-'));
  // A user signed up with a lifetime license code, on a machine of their own.
  const [code] = await live.licenses(app.id, 1, null);
  const signUp = await fetch(`${live.base}/api/integration/sign_up_with_license_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': app.api_key, 'x-api-secret': app.api_secret },
    body: JSON.stringify({ code, hardware_id: 'HW-ONLINE' }),
  });
  expect(signUp.status).toBe(201);
  const res = await fetch(`${live.base}/api/admin/license_files`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${app.admin_api_key}` },
    body: JSON.stringify({ username_or_license_code: code, hardware_id: 'HW-AIRGAP' }),
  });
  expect(res.status).toBe(201);
  issued = (await res.json()) as typeof issued;
  writeFileSync(join(work, 'user.lic'), issued.license_file);
}, 180_000);

afterAll(async () => {
  await live?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

// No GATEHOUSE_URL or admin key: the command needs neither.
const gatehouse = (args: string[]) => runGatehouse(live.build.outDir, ['license-file', 'verify', ...args], {}, work);

function refused(run: CliRun, code: string) {
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr.trimEnd().split('\n')[0]).toMatch(new RegExp(`^gatehouse: license file refused \\(${code}\\): `));
}

describe('gatehouse license-file verify', () => {
  it('verifies a file the admin API issued and prints its claims', async () => {
    const run = await gatehouse(['user.lic', '--public-key', publicKey, '--hardware-id', 'HW-AIRGAP', '--application-id', app.id]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`of application ${app.id}`);
    expect(run.stdout).toContain('membership: lifetime');
    expect(run.stdout).toContain(`expires ${issued.expires_at}`);

    const json = await gatehouse(['user.lic', '--public-key', otherKey, '--public-key', publicKey, '--hardware-id', 'HW-AIRGAP', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout) as { valid: boolean; claims: { app: string; exp: number; membership: { is_lifetime: boolean } } };
    expect(out).toMatchObject({ valid: true, claims: { app: app.id, membership: { is_lifetime: true } } });
    expect(out.claims.exp * 1000).toBe(Date.parse(issued.expires_at));
  });

  it('says why it refuses a file: another machine, another key, another application, altered bytes', async () => {
    refused(await gatehouse(['user.lic', '--public-key', publicKey, '--hardware-id', 'HW-ONLINE']), 'OTHER_MACHINE');
    refused(await gatehouse(['user.lic', '--public-key', publicKey]), 'OTHER_MACHINE');
    refused(await gatehouse(['user.lic', '--public-key', otherKey, '--hardware-id', 'HW-AIRGAP']), 'SIGNATURE_INVALID');
    refused(await gatehouse(['user.lic', '--public-key', publicKey, '--hardware-id', 'HW-AIRGAP', '--application-id', other.id]), 'OTHER_APPLICATION');
    const [begin, body, end] = readFileSync(join(work, 'user.lic'), 'utf8').split('\n');
    const envelope = JSON.parse(Buffer.from(body as string, 'base64').toString('utf8')) as { payload: string };
    const claims = JSON.parse(Buffer.from(envelope.payload, 'base64url').toString('utf8')) as { exp: number };
    const forged = { ...envelope, payload: Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 365 * 86_400 })).toString('base64url') };
    writeFileSync(join(work, 'forged.lic'), [begin, Buffer.from(JSON.stringify(forged)).toString('base64'), end].join('\n'));
    refused(await gatehouse(['forged.lic', '--public-key', publicKey, '--hardware-id', 'HW-AIRGAP']), 'SIGNATURE_INVALID');
    const json = await gatehouse(['forged.lic', '--public-key', publicKey, '--hardware-id', 'HW-AIRGAP', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, failure: 'SIGNATURE_INVALID' });
    writeFileSync(join(work, 'junk.lic'), 'not a license file');
    refused(await gatehouse(['junk.lic', '--public-key', publicKey]), 'MALFORMED');
  });

  it('usage errors exit 2: no file, no key, a key that is not one; an unreadable file exits 1', async () => {
    expect((await gatehouse(['--public-key', publicKey])).code).toBe(2);
    expect((await gatehouse(['user.lic'])).code).toBe(2);
    expect((await gatehouse(['user.lic', '--public-key', 'c2hvcnQ='])).code).toBe(2);
    const missing = await gatehouse(['missing.lic', '--public-key', publicKey]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read missing.lic: ENOENT');
  });
});
