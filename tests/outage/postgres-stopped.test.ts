// Issue 39, item 2, on PostgreSQL: the compiled server on a cluster of the test's own, which is
// stopped (`pg_ctl stop -m immediate`) under it. Login and app_context then answer 503
// SERVICE_UNAVAILABLE with Retry-After, signed by the application's key, so both SDKs (the
// TypeScript one here, the Python one in a python3 process) fall back to their stored license
// files; once the database is back, so is the service. Needs PostgreSQL server binaries and python3
// with `cryptography`; without them it is skipped and says why, but in CI
// (GATEHOUSE_REQUIRE_POSTGRES_TESTS) it fails instead.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { GatehouseClient, GatehouseError } from '../../src/client/gatehouse-client.js';
import { privatePostgresMissing, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { baseServerEnv, buildServer, killServer, repoRoot, runCli, startServerProcess, type Build, type ServerProcess } from '../support/server-process.js';

const probe = spawnSync('python3', ['-c', 'import sys, cryptography; assert sys.version_info >= (3, 9)'], { encoding: 'utf8' });
const absent = privatePostgresMissing() ?? (probe.status !== 0 ? 'python3 (3.9+) with `cryptography` is not installed' : null);
const missing = process.env['GATEHOUSE_REQUIRE_POSTGRES_TESTS'] ? null : absent;
if (missing !== null) console.warn(`tests/outage/postgres-stopped.test.ts skipped: ${missing}`);

let pg: PrivatePostgres;
let build: Build;
let server: ServerProcess;
let work: string;
let ownerAuth: string;

beforeAll(async () => {
  if (missing !== null) return;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-outage-pg-'));
  pg = await startPrivatePostgres();
  build = await buildServer();
  const env = baseServerEnv({ DATABASE_URL: pg.url, GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64'), GATEHOUSE_DATA_DIR: work, LOG_LEVEL: 'warn' });
  const owner = JSON.parse(await runCli(build.outDir, env, ['owner', 'create', '--email', 'outage@example.com', '--password', 'outage-password-1'])) as { token: string };
  ownerAuth = `Bearer ${owner.token}`;
  server = await startServerProcess(build.outDir, env);
}, 180_000);

afterAll(async () => {
  await killServer(server);
  await pg?.remove();
  build?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function consoleCall(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.base}/api/console${path}`, {
    method,
    headers: { authorization: ownerAuth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A python3 program with the SDK importable; its stdout's last line, parsed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function python(program: string, env: Record<string, string>): Promise<any> {
  return new Promise((done, fail) => {
    const child = spawn('python3', ['-c', program], { env: { ...process.env, ...env, PYTHONPATH: join(repoRoot, 'sdk', 'python'), PYTHONDONTWRITEBYTECODE: '1' } });
    const out: string[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d.toString()));
    child.stderr.on('data', (d: Buffer) => out.push(d.toString()));
    child.on('close', (code) => (code === 0 ? done(JSON.parse(out.join('').trim().split('\n').pop() ?? 'null')) : fail(new Error(`python3 exited ${code}:\n${out.join('')}`))));
  });
}

const PYTHON_CLIENT = `
import json, os, gatehouse
client = gatehouse.GatehouseClient(os.environ["BASE"], os.environ["API_KEY"], os.environ["API_SECRET"],
    response_signing_public_keys=os.environ["PUBLIC_KEY"], application_id=os.environ["APP_ID"],
    hardware_id="HW-PY", license_file=os.environ["LICENSE_FILE"])
`;

const PYTHON_ONLINE = `${PYTHON_CLIENT}
client.login(os.environ["USERNAME"], os.environ["PASSWORD"])
client.request_license_file()
print(json.dumps({"username": client.app_context().user.username}))
`;

const PYTHON_OFFLINE = `${PYTHON_CLIENT}
try:
    client.login(os.environ["USERNAME"], os.environ["PASSWORD"])
    login = None
except gatehouse.GatehouseError as error:
    login = {"status": error.status, "code": error.error_code, "retry_after": error.retry_after_seconds}
context = client.app_context(offline_fallback=True)
cause = context.cause
print(json.dumps({"login": login, "offline": getattr(context, "offline", False), "username": context.user.username,
    "cause": {"type": type(cause).__name__, "status": getattr(cause, "status", None), "code": getattr(cause, "error_code", None)}}))
`;

describe.skipIf(missing !== null)(`the server with its PostgreSQL stopped${missing === null ? '' : ` (skipped: ${missing})`}`, () => {
  it('answers 503 SERVICE_UNAVAILABLE signed, the SDKs fall back to their license files, and it recovers', async () => {
    // A server that died under the outage says why in its own output.
    onTestFailed(() => console.error(`server ${server.alive() ? 'alive' : 'exited'}; its output:\n${server.output.join('').slice(-4000)}`));
    const { application, credentials } = await consoleCall('POST', '/applications', { name: 'Outage' });
    const publicKey = application.response_signing_public_key as string;
    const codes = (await consoleCall('POST', `/applications/${application.id}/licenses`, { count: 2, minutes: 30 * 24 * 60 })).licenses.map((l: { code: string }) => l.code);
    const client = (hardwareId: string, licenseFile?: string) =>
      new GatehouseClient({
        baseUrl: server.base,
        apiKey: credentials.api_key,
        apiSecret: credentials.api_secret,
        responseSigningPublicKeys: [publicKey],
        applicationId: application.id,
        hardwareId,
        ...(licenseFile === undefined ? {} : { licenseFile }),
      });
    const ts = client('HW-TS', join(work, 'ts-license.txt'));
    await ts.signUp('alice', 'alice-password-1');
    await ts.activateLicense(codes[0], { username: 'alice', password: 'alice-password-1' });
    await ts.login({ username: 'alice', password: 'alice-password-1' });
    await ts.requestLicenseFile();
    expect((await ts.appContext()).user?.username).toBe('alice');
    const py = client('HW-PY');
    await py.signUp('bob', 'bob-password-1');
    await py.activateLicense(codes[1], { username: 'bob', password: 'bob-password-1' });
    const pyEnv = {
      BASE: server.base,
      API_KEY: credentials.api_key,
      API_SECRET: credentials.api_secret,
      PUBLIC_KEY: publicKey,
      APP_ID: application.id,
      LICENSE_FILE: join(work, 'py-license.txt'),
      USERNAME: 'bob',
      PASSWORD: 'bob-password-1',
    };
    expect(await python(PYTHON_ONLINE, pyEnv)).toEqual({ username: 'bob' });

    await pg.stopImmediately();

    // The answers themselves: 503, Retry-After, and signed (the pinned client verifies them:
    // an unsigned or forged answer would be a SignatureError, not a GatehouseError).
    const raw = await fetch(`${server.base}/api/integration/app_context`, { headers: { 'x-api-key': credentials.api_key, 'x-api-secret': credentials.api_secret } });
    expect(raw.status).toBe(503);
    expect(await raw.json()).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE' });
    expect(raw.headers.get('retry-after')).toBe('5');
    expect(raw.headers.get('x-signature')).toMatch(/^v1=/);
    const refusedContext = await ts.appContext().catch((e: unknown) => e);
    expect(refusedContext).toBeInstanceOf(GatehouseError);
    expect(refusedContext).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 5 });
    const refusedLogin = await client('HW-TS')
      .login({ username: 'alice', password: 'alice-password-1' })
      .catch((e: unknown) => e);
    expect(refusedLogin).toBeInstanceOf(GatehouseError);
    expect(refusedLogin).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });

    // The TypeScript SDK's fallback.
    const offline = await ts.appContext({ offlineFallback: true });
    expect(offline).toMatchObject({ offline: true, user: { username: 'alice' } });
    expect((offline as { cause: unknown }).cause).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });

    // The Python SDK's: its login is refused as unavailable, and app_context falls back.
    expect(await python(PYTHON_OFFLINE, pyEnv)).toEqual({
      login: { status: 503, code: 'SERVICE_UNAVAILABLE', retry_after: 5 },
      offline: true,
      username: 'bob',
      cause: { type: 'ServerError', status: 503, code: 'SERVICE_UNAVAILABLE' },
    });

    // Back again: the server serves without a restart of its own.
    await pg.start();
    while ((await fetch(`${server.base}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 100));
    await ts.login({ username: 'alice', password: 'alice-password-1' });
    const online = await ts.appContext({ offlineFallback: true });
    expect(online.offline).toBeUndefined();
    expect(online.user?.username).toBe('alice');
    expect(server.alive()).toBe(true);
  }, 120_000);
});
