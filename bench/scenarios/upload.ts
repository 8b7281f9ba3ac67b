// Scenario 4: uploads (plain, then encrypted) streamed to POST /api/admin/files: time to
// COMPLETED and the server's peak RSS growth; encrypted processing throughput against raw
// AES-256-GCM of node:crypto over the same number of bytes, measured just before and just after,
// and beside it against the disk: the same bytes written and fdatasync'd in the server's folder.
import { runCeilingScript } from '../ceiling-process.js';
import { createBenchApp } from '../fixture.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import type { BenchRow } from '../report.js';
import { runUploadScenario, uploadRows, UPLOAD_SCENARIOS } from '../upload-scenario.js';

/** What a ceiling script prints: the bytes it went through, and how fast. */
interface Throughput {
  bytes: number;
  seconds: number;
  megabytesPerSecond: number;
}

const rawAes = (bytes: number) => runCeilingScript<Throughput>('aes-gcm', { BENCH_BYTES: String(bytes) });
const durableWrite = (bytes: number, dir: string) => runCeilingScript<Throughput>('durable-write', { BENCH_BYTES: String(bytes), BENCH_DIR: dir });
const mean = (a: Throughput | null, b: Throughput | null) => (a !== null && b !== null ? (a.megabytesPerSecond + b.megabytesPerSecond) / 2 : null);

export async function uploadScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const server = await startBenchServer(ctx);
  try {
    const app = await createBenchApp(server, 'upload');
    const rows: BenchRow[] = [];
    for (const variant of UPLOAD_SCENARIOS) {
      const encrypted = variant === 'encrypted';
      const before = encrypted ? await rawAes(profile.uploadBytes) : null;
      const diskBefore = encrypted ? await durableWrite(profile.uploadBytes, server.dataDir) : null;
      const result = await runUploadScenario(server, app, { scenario: variant, sizeBytes: profile.uploadBytes });
      const diskAfter = encrypted ? await durableWrite(profile.uploadBytes, server.dataDir) : null;
      const after = encrypted ? await rawAes(profile.uploadBytes) : null;
      const aes = mean(before, after);
      const disk = mean(diskBefore, diskAfter);
      ctx.log(
        `upload-${variant}: ${profile.uploadBytes} bytes COMPLETED in ${result.totalSeconds.toFixed(2)} s, processing ${result.processingMBps.toFixed(0)} MB/s` +
          `${aes === null ? '' : ` (raw AES-256-GCM ${aes.toFixed(0)} MB/s)`}${disk === null ? '' : ` (durable write ${disk.toFixed(0)} MB/s)`}, peak RSS growth ${result.peakRssGrowthMiB.toFixed(1)} MiB`,
      );
      rows.push(...uploadRows(result, ctx.backendName, aes, disk));
    }
    return rows;
  } finally {
    await server.stop();
  }
}
