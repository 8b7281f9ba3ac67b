// The ceiling programs of bench/ceilings, each run in a process of its own, started and stopped
// the way the server is.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { spawnListening, type ListeningProcess } from './server-process.js';

export type CeilingServer = 'bare-fastify' | 'bare-file-server';
export type CeilingScript = 'argon2-verify' | 'sealing-work' | 'durable-write';

const entry = (name: string) => fileURLToPath(new URL(`./ceilings/${name}.js`, import.meta.url));

/** The bench's environment without what would change how node runs (NODE_OPTIONS), plus `extra`. */
function ceilingEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['NODE_OPTIONS'];
  return env;
}

export function startCeilingServer(name: CeilingServer, env: Record<string, string>): Promise<ListeningProcess> {
  return spawnListening(entry(name), { env: ceilingEnv(env), pattern: /ceiling listening on (http:\/\/\S+?:\d+)/ });
}

/** Runs a ceiling script to its end and parses the JSON line it prints. */
export async function runCeilingScript<T>(name: CeilingScript, env: Record<string, string>): Promise<T> {
  const child = spawn(process.execPath, [entry(name)], { env: ceilingEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`ceiling ${name} exited with ${code}: ${stderr.trim()}`);
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as T;
}
