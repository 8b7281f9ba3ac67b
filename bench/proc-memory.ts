// Memory of another process as Linux reports it in /proc/<pid>/status, and a sampler of its RSS.
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

export interface ProcMemory {
  /** Resident set size now (VmRSS), KiB. */
  rssKiB: number;
  /** Peak resident set size (VmHWM) since start or since the last resetPeakRss, KiB. */
  hwmKiB: number;
}

function field(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  if (match === null) throw new Error(`/proc status has no ${name} line`);
  return Number(match[1]);
}

export function readProcMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssKiB: field(status, 'VmRSS'), hwmKiB: field(status, 'VmHWM') };
}

/**
 * Resets the process's VmHWM to its current RSS (writing 5 to clear_refs, Linux 4.0+). Returns
 * false where that is not permitted; callers then rely on sampling alone.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface RssSample {
  /** Largest VmRSS seen, KiB. */
  maxKiB: number;
  samples: number;
  /** Longest time between two samples (a busy event loop delays them), ms. */
  maxGapMs: number;
}

/**
 * The sampling loop, run in a worker thread so that a busy main thread (the benchmark streaming
 * its upload) cannot delay samples. Results go to shared memory: max VmRSS KiB, samples, max gap ms.
 */
const SAMPLER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { pid, intervalMs, control, results } = workerData;
let last = 0;
for (;;) {
  const now = performance.now();
  try {
    const match = /^VmRSS:\\s+(\\d+)\\s+kB/m.exec(readFileSync('/proc/' + pid + '/status', 'utf8'));
    if (match) {
      results[0] = Math.max(results[0], Number(match[1]));
      if (results[1] > 0) results[2] = Math.max(results[2], now - last);
      results[1] += 1;
      last = now;
    }
  } catch {}
  if (Atomics.wait(control, 0, 0, intervalMs) !== 'timed-out' || Atomics.load(control, 0) !== 0) break;
}
`;

/**
 * Samples a process's VmRSS every `intervalMs` from a worker thread and keeps the largest.
 */
export class RssSampler {
  private worker: Worker | null = null;
  private readonly control = new Int32Array(new SharedArrayBuffer(4));
  private readonly results = new Float64Array(new SharedArrayBuffer(3 * 8));

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 50,
  ) {}

  start(): void {
    if (this.worker !== null) throw new Error('the sampler is already running');
    this.worker = new Worker(SAMPLER_SOURCE, {
      eval: true,
      workerData: { pid: this.pid, intervalMs: this.intervalMs, control: this.control, results: this.results },
    });
    this.worker.unref();
  }

  /** Stops the sampling thread and takes one last sample here. */
  async stop(): Promise<RssSample> {
    const worker = this.worker;
    if (worker === null) throw new Error('the sampler is not running');
    this.worker = null;
    Atomics.store(this.control, 0, 1);
    Atomics.notify(this.control, 0);
    await once(worker, 'exit');
    let maxKiB = this.results[0] ?? 0;
    let samples = this.results[1] ?? 0;
    try {
      maxKiB = Math.max(maxKiB, readProcMemory(this.pid).rssKiB);
      samples += 1;
    } catch {
      // The process has exited; the caller finds out on its own.
    }
    return { maxKiB, samples, maxGapMs: Math.round(this.results[2] ?? 0) };
  }
}
