// One upload scenario against a running server: stream a generated file to POST
// /api/admin/files, wait for COMPLETED, and measure times and the server's peak RSS growth.
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { encryptedSize } from '../src/file-format/encrypted-file.js';
import type { BenchApp } from './fixture.js';
import { generatedUpload, type GeneratedUpload } from './generated-upload.js';
import { readProcMemory, resetPeakRss, RssSampler } from './proc-memory.js';
import { benchRow, type BenchRow } from './report.js';
import type { ServerProcess } from './server-process.js';

export type UploadScenario = 'plain' | 'encrypted';
export const UPLOAD_SCENARIOS: readonly UploadScenario[] = ['plain', 'encrypted'];

/** Uploads need only the application's admin API key. */
type BenchApplication = Pick<BenchApp, 'adminApiKey'>;

export interface UploadScenarioOptions {
  scenario: UploadScenario;
  sizeBytes: number;
  /** How often the file is polled for COMPLETED (default 100 ms). */
  pollMs?: number;
  /** Give up waiting for COMPLETED after this long (default 30 minutes). */
  processingTimeoutMs?: number;
  /** Keep the file afterwards (by default it is deleted, to free the disk). */
  keepFile?: boolean;
}

export interface UploadScenarioResult {
  scenario: UploadScenario;
  sizeBytes: number;
  /** Request start to the 201 response. */
  uploadSeconds: number;
  /** 201 to the first poll that saw COMPLETED. */
  processingSeconds: number;
  totalSeconds: number;
  /** 10^6 bytes per second. */
  uploadMBps: number;
  processingMBps: number;
  baselineRssMiB: number;
  /** Largest sampled VmRSS during upload and processing. */
  sampledPeakRssMiB: number;
  /** VmHWM after the run, when it could be reset before it; null otherwise. */
  hwmPeakRssMiB: number | null;
  /** max(sampled, VmHWM) − baseline. */
  peakRssGrowthMiB: number;
  samples: number;
  maxSampleGapMs: number;
  fileId: string;
  sha256: string;
}

interface FileJson {
  id: string;
  processing_status: 'PENDING' | 'COMPLETED' | 'FAILED';
  size_bytes: number | null;
  sha256: string | null;
  storage_path: string | null;
  processing_error: string | null;
}

const kibToMiB = (kib: number) => kib / 1024;

/**
 * POSTs the generated body with Content-Length over node:http (backpressure through pipeline).
 * Resolves with the response, even one the server sent early before taking the whole body.
 */
function postUpload(url: string, headers: Record<string, string>, upload: GeneratedUpload): Promise<{ status: number; text: string; respondedAt: number }> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': upload.contentType, 'content-length': String(upload.contentLength) },
    });
    req.on('response', (res) => {
      responded = true;
      const respondedAt = performance.now();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, respondedAt }));
      res.on('error', reject);
    });
    pipeline(Readable.from(upload.body()), req).catch((error: Error) => {
      // A server answering early (413...) may cut the body short; its answer is what counts.
      if (!responded) reject(error);
    });
  });
}

async function getFile(server: ServerProcess, app: BenchApplication, fileId: string): Promise<FileJson> {
  const response = await fetch(`${server.baseUrl}/api/admin/files/${fileId}`, { headers: { authorization: `Bearer ${app.adminApiKey}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /api/admin/files/${fileId} answered ${response.status}: ${text}`);
  return JSON.parse(text) as FileJson;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one scenario. Throws when the upload or processing fails or the result is wrong: the
 * file must end COMPLETED with exactly the bytes sent (size and sha256), and the stored blob
 * must have the size its format implies.
 */
export async function runUploadScenario(server: ServerProcess, app: BenchApplication, options: UploadScenarioOptions): Promise<UploadScenarioResult> {
  const { scenario, sizeBytes } = options;
  const pollMs = options.pollMs ?? 100;
  const processingTimeoutMs = options.processingTimeoutMs ?? 30 * 60_000;
  const upload = generatedUpload({
    fields: { name: `bench-${scenario}-${randomBytes(4).toString('hex')}.bin`, is_public: 'false', store_encrypted: String(scenario === 'encrypted') },
    size: sizeBytes,
  });

  const baselineKiB = readProcMemory(server.pid).rssKiB;
  const hwmReset = resetPeakRss(server.pid);
  const sampler = new RssSampler(server.pid, 50);
  sampler.start();
  let sample;
  let file: FileJson;
  let started: number;
  let respondedAt: number;
  let completedAt: number;
  let hwmKiB: number | null = null;
  try {
    started = performance.now();
    const answer = await postUpload(`${server.baseUrl}/api/admin/files`, { authorization: `Bearer ${app.adminApiKey}` }, upload);
    respondedAt = answer.respondedAt;
    if (answer.status !== 201) throw new Error(`the upload answered ${answer.status}: ${answer.text}`);
    file = JSON.parse(answer.text) as FileJson;
    for (;;) {
      if (file.processing_status !== 'PENDING') break;
      if (performance.now() - respondedAt > processingTimeoutMs) throw new Error(`file ${file.id} still PENDING after ${processingTimeoutMs} ms`);
      await sleep(pollMs);
      file = await getFile(server, app, file.id);
    }
    completedAt = performance.now();
  } finally {
    sample = await sampler.stop();
    if (hwmReset) hwmKiB = readProcMemory(server.pid).hwmKiB;
  }

  if (file.processing_status !== 'COMPLETED') throw new Error(`file ${file.id} ended ${file.processing_status}: ${file.processing_error ?? ''}`);
  if (file.size_bytes !== sizeBytes) throw new Error(`size_bytes is ${file.size_bytes}, ${sizeBytes} were sent`);
  if (file.sha256 !== upload.sha256()) throw new Error(`sha256 is ${file.sha256}, the bytes sent hash to ${upload.sha256()}`);
  if (file.storage_path === null) throw new Error('a COMPLETED file has no storage_path');
  const storedSize = (await stat(join(server.dataDir, 'blobs', ...file.storage_path.split('/')))).size;
  const expectedStored = scenario === 'encrypted' ? encryptedSize(sizeBytes) : sizeBytes;
  if (storedSize !== expectedStored) throw new Error(`the stored blob has ${storedSize} bytes, expected ${expectedStored}`);
  if (!options.keepFile) {
    await fetch(`${server.baseUrl}/api/admin/files/${file.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${app.adminApiKey}` } });
  }

  const uploadSeconds = (respondedAt - started) / 1000;
  const processingSeconds = (completedAt - respondedAt) / 1000;
  const peakKiB = Math.max(sample.maxKiB, hwmKiB ?? 0);
  return {
    scenario,
    sizeBytes,
    uploadSeconds,
    processingSeconds,
    totalSeconds: (completedAt - started) / 1000,
    uploadMBps: sizeBytes / 1e6 / uploadSeconds,
    processingMBps: sizeBytes / 1e6 / processingSeconds,
    baselineRssMiB: kibToMiB(baselineKiB),
    sampledPeakRssMiB: kibToMiB(sample.maxKiB),
    hwmPeakRssMiB: hwmKiB === null ? null : kibToMiB(hwmKiB),
    peakRssGrowthMiB: kibToMiB(peakKiB - baselineKiB),
    samples: sample.samples,
    maxSampleGapMs: sample.maxGapMs,
    fileId: file.id,
    sha256: file.sha256,
  };
}

/** Peak RSS growth of the server over one upload and its processing, MiB (an upper bound). */
export const RSS_GROWTH_TARGET = 100;

/** Encrypted processing against the sealing work it requires, run as the server runs it (docs/performance.md). */
export const ENCRYPTED_PROCESSING_TARGET = 0.75;

/**
 * The rows of one upload. Encrypted processing is set against its sealing work (the target) and,
 * without a target, against the disk's durable write of as many bytes: processing ends with its
 * output fdatasync'd, so it can be no faster than that (docs/performance.md).
 */
export function uploadRows(result: UploadScenarioResult, backend: string, sealingCeilingMBps: number | null = null, diskCeilingMBps: number | null = null): BenchRow[] {
  const row = (metric: string, unit: string, value: number, more: { ceiling?: number | null; target?: number | null } = {}): BenchRow =>
    benchRow({ scenario: `upload-${result.scenario}`, backend, metric, unit, value, ...more });
  return [
    row('time_to_completed', 's', result.totalSeconds),
    row('upload_time', 's', result.uploadSeconds),
    row('processing_time', 's', result.processingSeconds),
    row('upload_throughput', 'MB/s', result.uploadMBps),
    ...(result.scenario === 'encrypted'
      ? [
          row('processing_throughput', 'MB/s', result.processingMBps, { ceiling: sealingCeilingMBps, target: sealingCeilingMBps === null ? null : ENCRYPTED_PROCESSING_TARGET }),
          row('processing_vs_durable_write', 'MB/s', result.processingMBps, { ceiling: diskCeilingMBps }),
        ]
      : [row('processing_throughput', 'MB/s', result.processingMBps)]),
    row('baseline_rss', 'MiB', result.baselineRssMiB),
    row('peak_rss_growth_mib', 'MiB', result.peakRssGrowthMiB, { target: RSS_GROWTH_TARGET }),
  ];
}
