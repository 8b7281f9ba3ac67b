// Acceptance (issue 21, points 1 to 3): the Python SDK's own unittest suite (sdk/python/tests),
// run by python3 against a real Gatehouse: the compiled server in a child process, as the
// TypeScript SDK's tests run it (tests/client/live-server.ts). The Python tests arrange what they
// need through the console API as the server's owner (GATEHOUSE_CONSOLE_TOKEN). They include the
// shared signing and file-encryption vectors, the README example run as printed, a tampering
// proxy and a 64 MiB encrypted download in bounded memory. No test may be skipped.
// Needs python3 with `cryptography` (.ci/run installs them); elsewhere, without them, the test is
// skipped and says why, but in CI (GATEHOUSE_REQUIRE_POSTGRES_TESTS) it fails instead.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/server-process.js';
import { startLiveServer, type LiveServer } from '../client/live-server.js';
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.js';

const probe = spawnSync('python3', ['-c', 'import sys, cryptography; assert sys.version_info >= (3, 9)'], { encoding: 'utf8' });
const absent = probe.error !== undefined ? 'python3 is not installed' : probe.status !== 0 ? 'python3 (3.9+) has no `cryptography` package' : null;
const missing = process.env['GATEHOUSE_REQUIRE_POSTGRES_TESTS'] ? null : absent;
if (missing !== null) console.warn(`tests/python-sdk/python-sdk.test.ts skipped: ${missing}`);

let live: LiveServer;
// Beside it, for the tests of time (test_live_heartbeat.py, test_live_floating_seats.py): the
// server in process on a clock the Python tests move through a small endpoint of their own on
// loopback, as the TypeScript SDK's do.
let clocked: TestApp;
let clockedBase: string;
let clockControl: Server;
let clockBase: string;

beforeAll(async () => {
  if (missing !== null) return;
  live = await startLiveServer('gatehouse-python-sdk');
  clocked = await startTestApp({ signUpLimits: { perAddress: 100_000 } });
  clockedBase = await listenOnLoopback(clocked);
  clockControl = createServer((req, res) => {
    const ms = Number(new URL(req.url ?? '/', 'http://loopback').searchParams.get('ms'));
    if (req.method !== 'POST' || !Number.isInteger(ms) || ms < 0) return void res.writeHead(400).end();
    clocked.clock.advance(ms);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(new Date(clocked.clock.now()).toISOString());
  });
  await new Promise<void>((ready) => clockControl.listen(0, '127.0.0.1', ready));
  clockBase = `http://127.0.0.1:${(clockControl.address() as { port: number }).port}`;
}, 180_000);

afterAll(async () => {
  clockControl?.close();
  await clocked?.close();
  await live?.stop();
});

interface Run {
  code: number | null;
  output: string;
}

const sdk = join(repoRoot, 'sdk', 'python');

/**
 * The SDK README's install block run as printed, in a shell without PYTHONPATH, with the
 * checkout filled in: the PYTHONPATH it leaves is the one the suite runs under.
 */
function printedInstall(): { code: number | null; pythonPath: string; output: string } {
  const readme = readFileSync(join(sdk, 'README.md'), 'utf8');
  const block = /<!-- python-sdk-install -->\n```sh\n([\s\S]*?)```/.exec(readme);
  if (block === null) throw new Error('sdk/python/README.md has no sh block after <!-- python-sdk-install -->');
  const script = block[1]!.replace(/^GATEHOUSE_CHECKOUT=.*$/m, 'GATEHOUSE_CHECKOUT="$CHECKOUT"');
  const { PYTHONPATH: _ignored, ...env } = process.env;
  const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-pyinstall-'));
  try {
    const run = spawnSync('bash', ['-ec', `${script}\nprintf '\\n%s' "$PYTHONPATH"`], { cwd, env: { ...env, CHECKOUT: repoRoot }, encoding: 'utf8' });
    const lines = run.stdout.split('\n');
    return { code: run.status, pythonPath: lines.at(-1) ?? '', output: lines.slice(0, -1).join('\n') + run.stderr };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** python3 -m unittest over sdk/python/tests, verbose, with the server's address and owner token. */
function unittestRun(pythonPath: string): Promise<Run> {
  const env = {
    ...process.env,
    PYTHONPATH: pythonPath,
    PYTHONDONTWRITEBYTECODE: '1',
    GATEHOUSE_URL: live.base,
    GATEHOUSE_CONSOLE_TOKEN: live.ownerAuth.slice('Bearer '.length),
    GATEHOUSE_CLOCKED_URL: clockedBase,
    GATEHOUSE_CLOCKED_CONSOLE_TOKEN: clocked.ownerToken,
    GATEHOUSE_CLOCK_URL: clockBase,
  };
  return new Promise((done) => {
    // Asynchronous: the test's own event loop stays free while Python runs.
    const child = spawn('python3', ['-m', 'unittest', 'discover', '-v', '-s', join(sdk, 'tests')], { cwd: repoRoot, env });
    const chunks: string[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d.toString()));
    child.stderr.on('data', (d: Buffer) => chunks.push(d.toString()));
    child.on('close', (code) => done({ code, output: chunks.join('') }));
  });
}

describe.skipIf(missing !== null)(`the Python SDK against a real server${missing === null ? '' : ` (skipped: ${missing})`}`, () => {
  it('installs as its README prints it, with no pip (PEP 668 refuses that on Debian)', () => {
    const readme = readFileSync(join(sdk, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Example'));
    // Every pip install shown runs inside a virtual environment made just before it.
    expect(install).toMatch(/python3 -m venv \.venv && \. \.venv\/bin\/activate\npip install /);
    const run = printedInstall();
    expect(run.code, run.output).toBe(0);
    expect(run.output.trim()).toBe('');
    expect(run.pythonPath).toBe(sdk);
  });

  it('leaves nothing of a pip install from the checkout for git to pick up', () => {
    const built = ['sdk/python/build/lib/gatehouse/client.py', 'sdk/python/gatehouse.egg-info/PKG-INFO'];
    const check = spawnSync('git', ['check-ignore', ...built], { cwd: repoRoot, encoding: 'utf8' });
    expect(check.stdout.trim().split('\n')).toEqual(built);
  });

  it('passes its unittest suite, with no test skipped', async () => {
    const { code, output } = await unittestRun(printedInstall().pythonPath);
    if (code !== 0) console.error(output);
    else
      console.log(
        output
          .split('\n')
          .filter((l) => /skipped|^64 MiB|^Ran |^OK/.test(l))
          .join('\n'),
      );
    expect(code, 'python3 -m unittest exit code').toBe(0);
    const ran = /^Ran (\d+) tests? in /m.exec(output);
    expect(ran, 'a "Ran N tests" line').not.toBeNull();
    expect(Number(ran![1])).toBeGreaterThan(40);
    // A bare OK: `OK (skipped=N)` would mean tests that did not run.
    expect(output).toMatch(/^OK$/m);
    // The live tests really ran against the server (not skipped for want of it).
    // The figures of the 64 MiB download come on a line of their own, between the test's name and its verdict.
    expect(output).toMatch(/test_64_mib_encrypted_download_streams_to_disk_in_flat_memory .* \.\.\. \n64 MiB encrypted download: [^\n]* ok$/m);
    expect(output).toMatch(/test_the_example_runs_as_written .* \.\.\. ok/);
    expect(output).toMatch(/test_a_flipped_byte_in_the_context_raises_signature_error .* \.\.\. ok/);
    expect(output).toMatch(/test_a_killed_clients_seat_frees_itself .* \.\.\. ok/);
    expect(output).toMatch(/test_the_heartbeat_keeps_a_floating_seat .* \.\.\. ok/);
    expect(output).toMatch(/test_a_killed_clients_floating_seat_frees_itself .* \.\.\. ok/);
  }, 900_000);
});
