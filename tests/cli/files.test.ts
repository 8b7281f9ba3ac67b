// Acceptance (issue 7, point 2): the CI commands of the compiled `gatehouse` CLI against a real
// server process: push --wait reaches COMPLETED and pull returns identical bytes (plain and
// encrypted), list/rm/user, --json output that parses, exit codes for a wrong key, a missing
// file, bad usage. FAILED and a --wait timeout are driven by a stub admin API that answers them.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type AppCredentials, type LiveServer } from '../client/live-server.js';
import { closedPort } from '../support/s3-server.js';
import { runGatehouse, type CliRun } from './run-cli.js';

const MiB = 1024 * 1024;
let live: LiveServer;
let app: AppCredentials;
let work: string;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  live = await startLiveServer('gatehouse-cli');
  app = await live.createApp({ device_auth: false });
  work = mkdtempSync(join(tmpdir(), 'gatehouse-cli-work-'));
}, 180_000);

afterAll(async () => {
  await live?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const gatehouse = (args: string[], env: Record<string, string> = {}) => runGatehouse(live.build.outDir, args, { GATEHOUSE_URL: live.base, GATEHOUSE_ADMIN_API_KEY: app.admin_api_key, ...env }, work);

/** Exit 0, or the run's output in the failure message. */
function ok(run: CliRun): CliRun {
  expect(run.code, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
  return run;
}

/** One line on stderr, no stack trace; the line. */
function oneLine(run: CliRun): string {
  expect(run.stderr).not.toMatch(/^\s+at /m);
  const lines = run.stderr.trimEnd().split('\n');
  return lines[0] as string;
}

describe('files push --wait and pull against a real server', () => {
  it('a plain file: push --wait --json reaches COMPLETED, pull returns identical bytes', async () => {
    const content = randomBytes(5 * MiB + 123);
    writeFileSync(join(work, 'build.bin'), content);
    const pushed = ok(await gatehouse(['files', 'push', 'build.bin', '--name', 'releases/app-1.0.bin', '--public', '--wait', '--json']));
    const file = JSON.parse(pushed.stdout) as { id: string; name: string; processing_status: string; sha256: string; is_public: boolean; store_encrypted: boolean; size_bytes: number };
    expect(file).toMatchObject({ name: 'releases/app-1.0.bin', processing_status: 'COMPLETED', sha256: sha(content), is_public: true, store_encrypted: false, size_bytes: content.length });
    // stderr is no terminal here: plain progress lines, not a redrawn bar.
    expect(pushed.stderr).toContain('uploading releases/app-1.0.bin: 100%');
    expect(pushed.stderr).not.toContain('\r');

    const pulled = ok(await gatehouse(['files', 'pull', 'releases/app-1.0.bin', '-o', 'pulled.bin', '--json']));
    expect(JSON.parse(pulled.stdout)).toMatchObject({ id: file.id, output: 'pulled.bin', bytes: content.length, sha256: sha(content), verified: true });
    expect(readFileSync(join(work, 'pulled.bin')).equals(content)).toBe(true);
    // By id, to the default name (the last segment of the file's name).
    ok(await gatehouse(['files', 'pull', file.id]));
    expect(readFileSync(join(work, 'app-1.0.bin')).equals(content)).toBe(true);
    // To stdout, for a pipe; the summary goes to stderr.
    const toStdout = ok(await gatehouse(['files', 'pull', file.id, '-o', '-']));
    expect(toStdout.stdoutBytes.equals(content)).toBe(true);
    expect(toStdout.stderr).toContain(`sha256 ${sha(content)}`);
  }, 60_000);

  it('an encrypted file: pull --key decrypts to identical bytes; without a key it comes as stored', async () => {
    const content = randomBytes(3 * MiB);
    writeFileSync(join(work, 'secret.bin'), content);
    const pushed = ok(await gatehouse(['files', 'push', 'secret.bin', '--encrypted', '--wait']));
    expect(pushed.stdout).toMatch(/^pushed secret\.bin \(id [0-9a-f-]{36}\): COMPLETED, \d+ bytes, encrypted\n$/);
    ok(await gatehouse(['files', 'pull', 'secret.bin', '-o', 'secret.out', '--key', app.files_encryption_key]));
    expect(readFileSync(join(work, 'secret.out')).equals(content)).toBe(true);
    // The key from the environment works the same.
    ok(await gatehouse(['files', 'pull', 'secret.bin', '-o', 'secret.env.out'], { GATEHOUSE_FILES_ENCRYPTION_KEY: app.files_encryption_key }));
    expect(readFileSync(join(work, 'secret.env.out')).equals(content)).toBe(true);
    const raw = ok(await gatehouse(['files', 'pull', 'secret.bin', '-o', 'secret.stored']));
    expect(raw.stderr).toContain('stored encrypted');
    expect(readFileSync(join(work, 'secret.stored')).subarray(0, 4).toString('ascii')).toBe('GHFE');
    // A wrong key fails authentication and leaves no output file behind.
    const wrong = await gatehouse(['files', 'pull', 'secret.bin', '-o', 'secret.bad', '--key', randomBytes(32).toString('base64')]);
    expect(wrong.code).toBe(1);
    expect(oneLine(wrong)).toMatch(/^gatehouse: .*authentic/i);
    expect(() => readFileSync(join(work, 'secret.bad'))).toThrow();
  }, 60_000);

  it('push to an existing name replaces its contents (same id); list, rm by name and by id', async () => {
    const v1 = randomBytes(10_000);
    const v2 = randomBytes(20_000);
    writeFileSync(join(work, 'v1.bin'), v1);
    writeFileSync(join(work, 'v2.bin'), v2);
    const first = JSON.parse(ok(await gatehouse(['files', 'push', 'v1.bin', '--name', 'latest.bin', '--wait', '--json'])).stdout) as { id: string };
    const second = ok(await gatehouse(['files', 'push', 'v2.bin', '--name', 'latest.bin', '--wait', '--json']));
    expect(second.stderr).toContain('replaced latest.bin');
    expect(JSON.parse(second.stdout)).toMatchObject({ id: first.id, processing_status: 'COMPLETED', sha256: sha(v2) });
    ok(await gatehouse(['files', 'pull', 'latest.bin', '-o', 'latest.out']));
    expect(readFileSync(join(work, 'latest.out')).equals(v2)).toBe(true);

    const listed = JSON.parse(ok(await gatehouse(['files', 'list', '--json'])).stdout) as Array<{ name: string }>;
    expect(listed.map((f) => f.name)).toContain('latest.bin');
    const table = ok(await gatehouse(['files', 'list'])).stdout;
    expect(table.split('\n')[0]).toMatch(/^ID\s+STATUS\s+SIZE\s+ENCRYPTED\s+PUBLIC\s+NAME$/);
    expect(table).toContain('latest.bin');

    expect(JSON.parse(ok(await gatehouse(['files', 'rm', 'latest.bin', '--json'])).stdout)).toEqual({ deleted: { id: first.id, name: 'latest.bin' } });
    const again = await gatehouse(['files', 'rm', 'latest.bin']);
    expect(again.code).toBe(5);
    expect(oneLine(again)).toBe('gatehouse: no file named or with id "latest.bin"');
    const byId = JSON.parse(ok(await gatehouse(['files', 'push', 'v1.bin', '--json'])).stdout) as { id: string };
    ok(await gatehouse(['files', 'rm', byId.id]));
  }, 60_000);

  it('an upload streams from disk: the CLI stays small while pushing 200 MiB', async () => {
    const path = join(work, 'large.bin');
    const block = randomBytes(MiB);
    const hash = createHash('sha256');
    writeFileSync(path, Buffer.alloc(0));
    for (let i = 0; i < 200; i++) {
      writeFileSync(path, block, { flag: 'a' });
      hash.update(block);
    }
    const pushed = ok(await gatehouse(['files', 'push', 'large.bin', '--wait', '--json', '--timeout', '120']));
    expect(JSON.parse(pushed.stdout)).toMatchObject({ processing_status: 'COMPLETED', sha256: hash.digest('hex'), size_bytes: 200 * MiB });
    console.log(`gatehouse files push of 200 MiB: CLI peak RSS ${(pushed.peakRssKiB / 1024).toFixed(1)} MiB`);
    if (pushed.peakRssKiB > 0) expect(pushed.peakRssKiB / 1024).toBeLessThan(150);
    rmSync(path);
  }, 120_000);
});

describe('user, errors and exit codes', () => {
  it('user <username|code> --json parses; an unknown user exits 5', async () => {
    const [code] = await live.licenses(app.id, 1, 60);
    const signUp = await fetch(`${live.base}/api/integration/sign_up_with_license_code`, {
      method: 'POST',
      headers: { 'x-api-key': app.api_key, 'x-api-secret': app.api_secret, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const member = (await signUp.json()) as { id: string; username: string };
    const byName = JSON.parse(ok(await gatehouse(['user', member.username, '--json'])).stdout) as { id: string; credential_type: string };
    expect(byName).toMatchObject({ id: member.id, credential_type: 'license_code' });
    const byCode = ok(await gatehouse(['user', code as string]));
    expect(byCode.stdout).toContain(`${member.username} (id ${member.id}, license_code)`);
    expect(byCode.stdout).toMatch(/membership: active, until /);
    const missing = await gatehouse(['user', 'nobody-here']);
    expect(missing.code).toBe(5);
    expect(oneLine(missing)).toMatch(/^gatehouse: .*\(404 USER_NOT_FOUND\)$/);
  });

  it('a wrong admin key exits 4 with one clear line', async () => {
    writeFileSync(join(work, 'any.bin'), 'x');
    // A large body too: the server answers 401 before it has read it, and that answer is what counts.
    writeFileSync(join(work, 'large-refused.bin'), randomBytes(20 * MiB));
    for (const args of [
      ['files', 'push', 'any.bin', '--wait'],
      ['files', 'push', 'large-refused.bin'],
      ['files', 'list'],
      ['user', 'someone'],
    ]) {
      const run = await gatehouse(args, { GATEHOUSE_ADMIN_API_KEY: 'gh_adm_wrong' });
      expect(run.code, run.stderr).toBe(4);
      // Progress lines may come first; the failure is the last line, and the only other kind.
      expect(
        run.stderr
          .trimEnd()
          .split('\n')
          .filter((l) => !l.startsWith('uploading ')),
      ).toHaveLength(1);
      expect(run.stderr.trimEnd().split('\n').pop()).toBe('gatehouse: the server refused the admin API key (401 INVALID_ADMIN_API_KEY): check --admin-key or GATEHOUSE_ADMIN_API_KEY');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
    // --admin-key wins over the environment.
    ok(await gatehouse(['files', 'list', '--admin-key', app.admin_api_key], { GATEHOUSE_ADMIN_API_KEY: 'gh_adm_wrong' }));
  });

  it('usage errors exit 2; an unreachable server exits 1', async () => {
    const noUrl = await runGatehouse(live.build.outDir, ['files', 'list'], { GATEHOUSE_ADMIN_API_KEY: 'x' }, work);
    expect(noUrl.code).toBe(2);
    expect(oneLine(noUrl)).toBe('gatehouse: no server URL: pass --url or set GATEHOUSE_URL');
    const noKey = await runGatehouse(live.build.outDir, ['files', 'list', '--url', live.base], {}, work);
    expect(noKey.code).toBe(2);
    expect(oneLine(noKey)).toBe('gatehouse: no admin API key: pass --admin-key or set GATEHOUSE_ADMIN_API_KEY');
    expect((await gatehouse(['files', 'push'])).code).toBe(2);
    expect((await gatehouse(['files', 'push', 'no-such-file.bin'])).code).toBe(2);
    expect((await gatehouse(['files', 'list', '--bogus'])).code).toBe(2);
    expect((await gatehouse(['files', 'explode'])).code).toBe(2);
    expect((await gatehouse(['files', 'push', 'any.bin', '--timeout', 'soon'])).code).toBe(2);
    const port = await closedPort();
    for (const args of [
      ['files', 'list'],
      ['files', 'push', 'any.bin'],
    ]) {
      const down = await gatehouse(args, { GATEHOUSE_URL: `http://127.0.0.1:${port}` });
      expect(down.code).toBe(1);
      expect(down.stderr.trimEnd().split('\n').pop()).toMatch(new RegExp(`^gatehouse: cannot reach http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
    }
  });
});

describe('--wait outcomes a healthy server rarely shows (a stub admin API)', () => {
  let stub: Server;
  let stubUrl = '';
  let status: 'PENDING' | 'FAILED' = 'PENDING';
  const file = (s: string) => ({
    id: '11111111-1111-4111-8111-111111111111',
    name: 'stub.bin',
    is_public: false,
    processing_status: s,
    storage_status: 'NOT_STORED',
    size_bytes: null,
    store_encrypted: false,
    sha256: null,
    processing_error: s === 'FAILED' ? 'disk full' : null,
    created_at: new Date().toISOString(),
  });

  beforeAll(async () => {
    stub = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const created = req.method === 'PUT';
        res.writeHead(created ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(file(created ? 'PENDING' : status)));
      });
    });
    await new Promise<void>((done) => stub.listen(0, '127.0.0.1', done));
    stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    writeFileSync(join(work, 'stub.bin'), 'stub');
  });
  afterAll(() => stub?.close());

  it('FAILED exits 1 naming the processing error; the File still prints with --json', async () => {
    status = 'FAILED';
    const run = await gatehouse(['files', 'push', 'stub.bin', '--wait', '--json', '--interval', '0.05'], { GATEHOUSE_URL: stubUrl });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ processing_status: 'FAILED' });
    expect(run.stderr).toContain('gatehouse: processing of stub.bin FAILED: disk full');
  });

  it('still PENDING at --timeout exits 3', async () => {
    status = 'PENDING';
    const run = await gatehouse(['files', 'push', 'stub.bin', '--wait', '--timeout', '0.3', '--interval', '0.05'], { GATEHOUSE_URL: stubUrl });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/gatehouse: stub\.bin is still PENDING after \d+ s \(--timeout\)/);
  });
});
