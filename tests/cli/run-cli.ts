// Runs the compiled gatehouse command as a pipeline would: its exit code, stdout and stderr,
// and (from /proc, sampled while it runs) its peak resident memory.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseServerEnv, repoRoot } from '../support/server-process.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  /** stdout as bytes (for `files pull -o -`). */
  stdoutBytes: Buffer;
  stderr: string;
  /** VmHWM of the process in KiB, last sampled before it exited (0 when /proc is unavailable). */
  peakRssKiB: number;
}

/** `input`, when given, is written to the command's stdin (then closed). */
export function runGatehouse(outDir: string, args: string[], env: Record<string, string>, cwd = repoRoot, input?: string): Promise<CliRun> {
  const child = spawn(process.execPath, [join(outDir, 'src', 'cli.js'), ...args], { cwd, env: baseServerEnv(env), stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin!.end(input);
  const out: Buffer[] = [];
  let stderr = '';
  let peakRssKiB = 0;
  child.stdout!.on('data', (d: Buffer) => out.push(d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const sample = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peakRssKiB = Math.max(peakRssKiB, Number(m[1]));
    } catch {
      // exited, or no /proc
    }
  }, 20);
  return new Promise((done) =>
    child.once('close', (code) => {
      clearInterval(sample);
      const stdoutBytes = Buffer.concat(out);
      done({ code, stdout: stdoutBytes.toString(), stdoutBytes, stderr, peakRssKiB });
    }),
  );
}
