// The compiled server as child processes: build it once per test file with tsc into the
// repository's node_modules/.cache (so the compiled store finds drizzle/ by walking up, and bare
// imports resolve to the repository's node_modules), start `node <outDir>/src/main.js` with an
// environment of the test's choosing, and read its address from the line it prints.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
  /** Removes the build folder. */
  remove(): void;
}

/** Compiles src with tsconfig.build.json into a folder of this process (`name` keeps suites apart). */
export async function buildServer(name: string): Promise<Build> {
  const buildDir = join(repoRoot, 'node_modules', '.cache', name, String(process.pid));
  const outDir = join(buildDir, 'dist');
  rmSync(buildDir, { recursive: true, force: true });
  await run(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: repoRoot });
  return { outDir, remove: () => rmSync(buildDir, { recursive: true, force: true }) };
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
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
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
