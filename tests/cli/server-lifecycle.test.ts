// The compiled server as an operator meets it (issue 13): --help and --version answer instead of
// starting, a taken address is named, and a stop during an upload says what it waits for, waits
// at most GATEHOUSE_SHUTDOWN_GRACE_SECONDS, stops at once on a second signal, and leaves nothing
// behind that the start-up temp sweep and the orphan sweep do not remove.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SAME_PRESS_MS } from '../../src/shutdown.js';
import { sweepOrphanBlobs } from '../../src/application/files/orphan-sweep.js';
import { createLocalBlobStore, sweepTempFiles } from '../../src/adapters/blob/local-blob-store.js';
import { openSqliteStore } from '../../src/adapters/persistence/sqlite/sqlite-store.js';
import { baseServerEnv, buildServer, killServer, repoRoot, runCli, startServerProcess, type Build, type ServerProcess } from '../support/server-process.js';

let build: Build;
const folders: string[] = [];
let server: ServerProcess | null = null;

beforeAll(async () => {
  build = await buildServer();
}, 180_000);

afterEach(async () => {
  await killServer(server);
  server = null;
});

afterAll(() => {
  build?.remove();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

function main(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(process.execPath, [join(build.outDir, 'src', 'main.js'), ...args], { cwd: repoRoot, env: baseServerEnv({}) }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    ),
  );
}

/** A data folder with an owner, and a server on it. */
async function serverWithApp(extra: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-lifecycle-'));
  folders.push(dataDir);
  const env = baseServerEnv({ GATEHOUSE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra });
  const { token } = JSON.parse(await runCli(build.outDir, env, ['owner', 'create', '--init', '--email', 'stop@example.com', '--password', 'stop-test-password'])) as { token: string };
  server = await startServerProcess(build.outDir, env);
  const res = await fetch(`${server.base}/api/console/applications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Stop test' }),
  });
  const adminKey = ((await res.json()) as { credentials: { admin_api_key: string } }).credentials.admin_api_key;
  return { dataDir, adminKey, server };
}

interface OpenUpload {
  req: ClientRequest;
  /** Sends the rest of the body. */
  finish(): void;
  /** Sends the rest of the body in 20 pieces 50 ms apart, as a slow link would. */
  finishSlowly(): void;
  /** The answer, or the error the cut connection gave. */
  outcome: Promise<{ status: number; body: string } | { error: string }>;
}

/** A multipart upload of which only the first half of the file has been sent. */
function startUpload(base: string, adminKey: string, size: number): OpenUpload {
  const boundary = `----gatehouse${randomBytes(8).toString('hex')}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    `${field('name', 'big.bin')}${field('is_public', 'false')}${field('store_encrypted', 'false')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const content = randomBytes(size);
  const half = size / 2;
  const url = new URL('/api/admin/files', base);
  const req = request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
  });
  const outcome = new Promise<{ status: number; body: string } | { error: string }>((done) => {
    req.once('response', (res: IncomingMessage) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      res.on('error', (e) => done({ error: e.message }));
    });
    req.once('error', (e) => done({ error: e.message }));
  });
  req.write(head);
  req.write(content.subarray(0, half));
  const rest = Buffer.concat([content.subarray(half), tail]);
  const finishSlowly = () => {
    const piece = Math.ceil(rest.length / 20);
    let sent = 0;
    const next = () => {
      const end = Math.min(sent + piece, rest.length);
      if (end === rest.length) return void req.end(rest.subarray(sent));
      req.write(rest.subarray(sent, end));
      sent = end;
      setTimeout(next, 50);
    };
    next();
  };
  return { req, outcome, finish: () => req.end(rest), finishSlowly };
}

/** Resolves once `check` holds, polling; fails after `limitMs`. */
async function until(what: string, check: () => boolean, limitMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const tempFiles = (dataDir: string) => {
  const dir = join(dataDir, 'blobs', '.tmp');
  return existsSync(dir) ? readdirSync(dir) : [];
};
const blobFiles = (dataDir: string) => {
  const root = join(dataDir, 'blobs');
  return existsSync(root)
    ? readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name))
    : [];
};

/** What a cut-off upload may leave: after the temp sweep of the next start and the orphan sweep, nothing. */
async function expectNothingLeft(dataDir: string): Promise<void> {
  const root = join(dataDir, 'blobs');
  await sweepTempFiles(root, 0);
  const store = openSqliteStore({ path: join(dataDir, 'gatehouse.db') });
  try {
    await sweepOrphanBlobs({ store, blobs: createLocalBlobStore({ root }) }, 0, Date.now() + 1000);
    // No file and no job is left: a job would still hold its staging and output keys.
    expect(await store.referencedBlobKeys()).toEqual(new Set());
  } finally {
    await store.close();
  }
  expect(blobFiles(dataDir)).toEqual([]);
}

describe('the server command line', () => {
  it('answers --help and --version instead of starting', async () => {
    const help = await main(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm start/);
    expect(help.stdout).toContain('GATEHOUSE_SHUTDOWN_GRACE_SECONDS');
    const version = await main(['--version']);
    expect(version).toEqual({ code: 0, stdout: 'gatehouse 0.1.0\n', stderr: '' });
    const unknown = await main(['--port=9000']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('gatehouse: unknown argument "--port=9000"; the server takes its settings from environment variables (--help)\n');
  }, 30_000);

  it('names the address when it is in use', async () => {
    const { server: first, dataDir } = await serverWithApp({});
    const port = new URL(first.base).port;
    const run = await new Promise<{ code: number; stderr: string }>((done) =>
      execFile(process.execPath, [join(build.outDir, 'src', 'main.js')], { cwd: repoRoot, env: baseServerEnv({ GATEHOUSE_DATA_DIR: dataDir, PORT: port }) }, (error, _stdout, stderr) =>
        done({ code: error === null ? 0 : Number(error.code ?? 1), stderr }),
      ),
    );
    expect(run).toEqual({ code: 1, stderr: `gatehouse: cannot listen on 127.0.0.1:${port}: the address is already in use; set HOST or PORT to another one\n` });
  }, 60_000);
});

describe('stopping during an upload', () => {
  it('says what it waits for and lets the upload finish within the grace time', async () => {
    const { dataDir, adminKey, server: s } = await serverWithApp({});
    const upload = startUpload(s.base, adminKey, 4 * 1024 * 1024);
    await until('the upload to reach staging', () => tempFiles(dataDir).length > 0);
    s.child.kill('SIGTERM');
    await until('the shutdown message', () => s.output.join('').includes('SIGTERM: shutting down'));
    expect(s.output.join('')).toContain('SIGTERM: shutting down; waiting for 1 upload to finish, up to 30 s; send SIGTERM again to stop now');
    upload.finish();
    const outcome = await upload.outcome;
    expect(outcome).toMatchObject({ status: 201 });
    expect(await s.exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('stops waiting after GATEHOUSE_SHUTDOWN_GRACE_SECONDS and cuts the upload off, leaving nothing the sweeps keep', async () => {
    const { dataDir, adminKey, server: s } = await serverWithApp({ GATEHOUSE_SHUTDOWN_GRACE_SECONDS: '1' });
    const upload = startUpload(s.base, adminKey, 4 * 1024 * 1024);
    await until('the upload to reach staging', () => tempFiles(dataDir).length > 0);
    const stoppedAt = Date.now();
    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 1, signal: null });
    // Bounded by the grace time plus the cleanup allowance, far below the upload deadline.
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    const said = s.output.join('');
    expect(said).toContain('waiting for 1 upload to finish, up to 1 s');
    expect(said).toContain('stopped waiting after 1 s: cutting off 1 upload');
    expect(await upload.outcome).toHaveProperty('error');
    await expectNothingLeft(dataDir);
  }, 60_000);

  it('stops at once on a second Ctrl-C', async () => {
    const { dataDir, adminKey, server: s } = await serverWithApp({ GATEHOUSE_SHUTDOWN_GRACE_SECONDS: '600' });
    const upload = startUpload(s.base, adminKey, 4 * 1024 * 1024);
    await until('the upload to reach staging', () => tempFiles(dataDir).length > 0);
    s.child.kill('SIGINT');
    await until('the shutdown message', () => s.output.join('').includes('press Ctrl-C again to stop now'));
    // A person reads the message before pressing again; a repeat sooner is taken for a relayed copy.
    await new Promise((r) => setTimeout(r, SAME_PRESS_MS + 200));
    const secondAt = Date.now();
    s.child.kill('SIGINT');
    expect(await s.exited).toEqual({ code: 1, signal: null });
    expect(Date.now() - secondAt).toBeLessThan(10_000);
    expect(s.output.join('')).toContain('SIGINT again: stopping now');
    expect(await upload.outcome).toHaveProperty('error');
    await expectNothingLeft(dataDir);
  }, 60_000);
});

/**
 * `npm start` (the README's command, from the repository's package.json) on a pseudo-terminal
 * (util-linux `script`), in a scratch project whose dist/ is this file's build: the terminal sends
 * Ctrl-C to npm and the server alike, and npm relays its own copy.
 */
function npmStartOnTerminal(env: NodeJS.ProcessEnv) {
  const project = mkdtempSync(join(tmpdir(), 'gatehouse-npm-start-'));
  folders.push(project);
  const start = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'npm-start-test', private: true, scripts: { start } }));
  symlinkSync(build.outDir, join(project, 'dist'));
  // `exec`: script runs the command through $SHELL, and dash (Debian's /bin/sh) waiting on npm
  // would itself die of the Ctrl-C; an interactive shell hands the terminal to npm instead.
  const child = spawn('script', ['-qfec', 'exec npm start', '/dev/null'], { cwd: project, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
  child.stderr.on('data', (d: Buffer) => (screen += d.toString()));
  const closed = new Promise<number | null>((done) => child.once('close', done));
  return { child, screen: () => screen, closed, pressCtrlC: () => child.stdin.write('\x03') };
}

describe('Ctrl-C under npm start on a terminal', () => {
  it('one press drains the upload and exits 0; a second press stops at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-lifecycle-'));
    folders.push(dataDir);
    const env = baseServerEnv({ GATEHOUSE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', GATEHOUSE_SHUTDOWN_GRACE_SECONDS: '600' });
    const { token } = JSON.parse(await runCli(build.outDir, env, ['owner', 'create', '--init', '--email', 'npm@example.com', '--password', 'npm-start-password'])) as { token: string };
    const run = async () => {
      const terminal = npmStartOnTerminal(env);
      await until('the server to listen', () => /Gatehouse listening on http:\/\/127\.0\.0\.1:\d+/.test(terminal.screen()), 60_000);
      const base = /Gatehouse listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(terminal.screen())![1]!;
      return { terminal, base };
    };

    const first = await run();
    const res = await fetch(`${first.base}/api/console/applications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'npm start' }),
    });
    const adminKey = ((await res.json()) as { credentials: { admin_api_key: string } }).credentials.admin_api_key;
    const upload = startUpload(first.base, adminKey, 4 * 1024 * 1024);
    await until('the upload to reach staging', () => tempFiles(dataDir).length > 0);
    first.terminal.pressCtrlC();
    await until('the shutdown message', () => first.terminal.screen().includes('press Ctrl-C again to stop now'));
    // The rest takes a second to arrive, time for npm's relayed copy to reach the server.
    upload.finishSlowly();
    expect(await upload.outcome).toMatchObject({ status: 201 });
    expect(await first.terminal.closed).toBe(0);
    expect(first.terminal.screen()).toContain('SIGINT: shutting down; waiting for 1 upload to finish, up to 600 s; press Ctrl-C again to stop now');
    expect(first.terminal.screen()).not.toContain('again: stopping now');

    const second = await run();
    const cut = startUpload(second.base, adminKey, 4 * 1024 * 1024);
    await until('the upload to reach staging', () => tempFiles(dataDir).length > 0);
    second.terminal.pressCtrlC();
    await until('the shutdown message', () => second.terminal.screen().includes('press Ctrl-C again to stop now'));
    // As above: a repeat within SAME_PRESS_MS would be taken for npm's copy.
    await new Promise((r) => setTimeout(r, SAME_PRESS_MS + 200));
    second.terminal.pressCtrlC();
    expect(await second.terminal.closed).toBe(1);
    expect(second.terminal.screen()).toContain('SIGINT again: stopping now');
    expect(await cut.outcome).toHaveProperty('error');
  }, 180_000);
});
