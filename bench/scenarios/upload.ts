// Scenario 4: uploads (plain, then encrypted) streamed to POST /api/admin/files: time to
// COMPLETED and the server's peak RSS growth; encrypted processing throughput against the work it
// requires (ceilings/sealing-work.ts) over the same number of bytes, measured just before and
// just after, and beside it against the disk: the same bytes written and fdatasync'd there.
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

const sealingWork = (bytes: number) => runCeilingScript<Throughput>('sealing-work', { BENCH_BYTES: String(bytes) });
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
      const before = encrypted ? await sealingWork(profile.uploadBytes) : null;
      const diskBefore = encrypted ? await durableWrite(profile.uploadBytes, server.dataDir) : null;
      const result = await runUploadScenario(server, app, { scenario: variant, sizeBytes: profile.uploadBytes });
      const diskAfter = encrypted ? await durableWrite(profile.uploadBytes, server.dataDir) : null;
      const after = encrypted ? await sealingWork(profile.uploadBytes) : null;
      const sealing = mean(before, after);
      const disk = mean(diskBefore, diskAfter);
      ctx.log(
        `upload-${variant}: ${profile.uploadBytes} bytes COMPLETED in ${result.totalSeconds.toFixed(2)} s, processing ${result.processingMBps.toFixed(0)} MB/s` +
          `${sealing === null ? '' : ` (sealing work ${sealing.toFixed(0)} MB/s)`}${disk === null ? '' : ` (durable write ${disk.toFixed(0)} MB/s)`}, peak RSS growth ${result.peakRssGrowthMiB.toFixed(1)} MiB`,
      );
      rows.push(...uploadRows(result, ctx.backendName, sealing, disk));
    }
    return rows;
  } finally {
    await server.stop();
  }
}
