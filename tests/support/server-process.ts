// The compiled server as child processes: built once per set of sources into the repository's
// node_modules/.cache (so the compiled store finds drizzle/ by walking up, and bare imports
// resolve to the repository's node_modules); started as `node <outDir>/src/main.js`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Still running (neither exited nor killed by a signal). */
  alive(): boolean;
}

export interface Build {
  outDir: string;
  /** Nothing to do: the build is shared by every test file of the run and kept for the next. */
  remove(): void;
}

const buildInputs = ['src', 'tsconfig.json', 'tsconfig.build.json'];

/** A digest of what the server is compiled from, naming its shared build folder. */
function sourcesDigest(): string {
  const hash = createHash('sha256');
  const files = buildInputs
    .flatMap((input) => {
      const full = join(repoRoot, input);
      if (!statSync(full).isDirectory()) return [input];
      return readdirSync(full, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => relative(repoRoot, join(e.parentPath, e.name)));
    })
    .sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(repoRoot, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * The compiled server (tsc with tsconfig.build.json), built once for the current sources and
 * shared by every test file and run: the first file to ask builds it under a lock (a directory
 * made atomically), the rest wait for its marker. See docs/testing.md.
 */
export async function buildServer(): Promise<Build> {
  const cache = join(repoRoot, 'node_modules', '.cache', 'gatehouse-server');
  const buildDir = join(cache, sourcesDigest());
  const outDir = join(buildDir, 'dist');
  const marker = join(buildDir, 'complete');
  const lock = `${buildDir}.lock`;
  mkdirSync(cache, { recursive: true });
  for (const started = Date.now(); !existsSync(marker);) {
    if (tryLock(lock)) {
      try {
        if (!existsSync(marker)) {
          rmSync(buildDir, { recursive: true, force: true });
          await run(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: repoRoot });
          writeFileSync(marker, '');
          pruneOlderBuilds(cache, buildDir);
        }
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    } else {
      if (Date.now() - started > 300_000) throw new Error(`waited 5 minutes for the server build (${lock})`);
      await new Promise((done) => setTimeout(done, 200));
    }
  }
  return { outDir, remove: () => {} };
}

/** Takes the build lock; a lock left by a process that died more than 5 minutes ago is taken over. */
function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    const stale = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 300_000;
    if (stale) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/** Builds of other sources older than a day are removed; recent ones may serve another run. */
function pruneOlderBuilds(cache: string, keep: string): void {
  for (const entry of readdirSync(cache, { withFileTypes: true })) {
    const path = join(cache, entry.name);
    if (path === keep || !entry.isDirectory() || entry.name.endsWith('.lock')) continue;
    if (Date.now() - statSync(path).mtimeMs > 86_400_000) rmSync(path, { recursive: true, force: true });
  }
}

/** The test process's environment without the variables that would steer a child server. */
export function baseServerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'NODE_OPTIONS',
    'DATABASE_URL',
    'GATEHOUSE_MASTER_KEY',
    'GATEHOUSE_BLOB_STORE',
    'GATEHOUSE_TRUST_PROXY',
    'S3_BUCKET',
    'S3_ENDPOINT',
    'S3_REGION',
    'S3_FORCE_PATH_STYLE',
    'S3_ACCESS_KEY_ID',
    'S3_SECRET_ACCESS_KEY',
    'VITEST',
    'VITEST_POOL_ID',
    'VITEST_WORKER_ID',
  ]) {
    delete env[name];
  }
  return { ...env, PORT: '0', HOST: '127.0.0.1', ...extra };
}

/** Starts the compiled server (in `cwd`, the repository by default); resolves once it prints its address. */
export function startServerProcess(outDir: string, env: NodeJS.ProcessEnv, timeoutMs = 20_000, cwd = repoRoot): Promise<ServerProcess> {
  const child = spawn(process.execPath, [join(outDir, 'src', 'main.js')], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const alive = () => child.exitCode === null && child.signalCode === null;
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`server did not start:\n${output.join('')}`));
    }, timeoutMs);
    child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      output.push(d.toString());
      const m = /Gatehouse listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        done({ child, base: m[1] as string, output, exited, alive });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code ?? signal}) before listening:\n${output.join('')}`));
    });
  });
}

/** SIGKILLs a server that still runs and waits for it to go. */
export async function killServer(s: ServerProcess | null | undefined): Promise<void> {
  if (!s) return;
  if (s.alive()) s.child.kill('SIGKILL');
  await s.exited;
}

/** Runs the compiled CLI with the given environment; its stdout. */
export async function runCli(outDir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [join(outDir, 'src', 'cli.js'), ...args], { cwd: repoRoot, env });
  return stdout;
}
