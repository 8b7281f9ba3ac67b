// The built server (dist/src/main.js, what `npm start` runs) in its own process on a fresh temp
// data dir, and the gatehouse CLI against the same data dir. Build first (npm run build).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/bench/*.js sits beside dist/src/. */
const DIST_SRC = fileURLToPath(new URL('../src/', import.meta.url));
export const SERVER_ENTRY = join(DIST_SRC, 'main.js');
export const CLI_ENTRY = join(DIST_SRC, 'cli.js');

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
/** How much of the server's output is kept for error messages. */
const OUTPUT_TAIL_CHARS = 16_000;

export interface StartServerOptions {
  /** Extra environment (GATEHOUSE_WORKERS, GATEHOUSE_MAX_UPLOAD_BYTES...); LOG_LEVEL defaults to warn. */
  env?: Record<string, string>;
  /** Arguments for node before the entry point (--max-old-space-size=..., --expose-gc). */
  nodeArgs?: string[];
  /** Leave the data dir in place after stop() (for looking at it afterwards). */
  keepDataDir?: boolean;
}

export interface ServerProcess {
  pid: number;
  /** http://127.0.0.1:<port>, no trailing slash. */
  baseUrl: string;
  dataDir: string;
  /** Runs `gatehouse <args>` with the server's environment; resolves to its stdout. */
  cli(args: string[]): Promise<string>;
  /** The last part of the server's stdout and stderr (its logs), for error messages. */
  output(): string;
  /** SIGTERM, then SIGKILL if it does not exit in time; removes the data dir. */
  stop(): Promise<void>;
}

function tail(text: string): string {
  return text.length > OUTPUT_TAIL_CHARS ? text.slice(-OUTPUT_TAIL_CHARS) : text;
}

/** The environment of the server and the CLI: the embedded SQLite database and the local blob folder. */
function serverEnv(dataDir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'GATEHOUSE_BLOB_STORE', 'GATEHOUSE_MASTER_KEY', 'NODE_OPTIONS']) delete env[name];
  return { ...env, HOST: '127.0.0.1', PORT: '0', GATEHOUSE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
}

async function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, timeoutMs);
    child.once('exit', onExit);
  });
}

export async function startServer(options: StartServerOptions = {}): Promise<ServerProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-'));
  const env = serverEnv(dataDir, options.env ?? {});
  try {
    const listening = await spawnListening(SERVER_ENTRY, { env, nodeArgs: options.nodeArgs ?? [], pattern: /Gatehouse listening on (http:\/\/\S+?:\d+)/ });
    return {
      pid: listening.pid,
      baseUrl: listening.baseUrl,
      dataDir,
      cli: (args) => runNode(CLI_ENTRY, args, env),
      output: listening.output,
      stop: async () => {
        await listening.stop();
        if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export interface ListeningProcess {
  pid: number;
  baseUrl: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Spawns `node [nodeArgs] entry` and waits for the line that names its address (the first
 * capture group of `pattern`). Ceiling servers use this too, so that both sides of a comparison
 * are started, run and stopped the same way.
 */
export async function spawnListening(entry: string, options: { env: NodeJS.ProcessEnv; nodeArgs?: string[]; pattern: RegExp }): Promise<ListeningProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry], { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (output = tail(output + s)));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (output = tail(output + s)));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if (!(await exited(child, STOP_TIMEOUT_MS))) {
        child.kill('SIGKILL');
        await exited(child, STOP_TIMEOUT_MS);
      }
    }
  };

  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${entry} did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      const onData = () => {
        const match = options.pattern.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          resolve(match[1]);
        }
      };
      child.stdout?.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${entry} exited during startup (${signal ?? `code ${code}`})`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    if (child.pid === undefined) throw new Error(`${entry} has no pid`);
    return { pid: child.pid, baseUrl, output: () => output, stop };
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- output ---\n${output}`, { cause: error });
  }
}

/** Runs a node script to its end; resolves to its stdout, rejects with its stderr on failure. */
async function runNode(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = tail(stderr + s)));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${script} ${args[0] ?? ''} exited with ${code}: ${stderr.trim()}`);
  return stdout;
}
