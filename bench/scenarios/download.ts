// Scenario 3: the integration download of a large file (plain, and encrypted: both served as
// stored) against a bare node:http server streaming the same stored file from disk.
import { request } from 'node:http';
import { encryptedSize } from '../../src/file-format/encrypted-file.js';
import { join } from 'node:path';
import { alternate, median } from '../alternate.js';
import { startCeilingServer } from '../ceiling-process.js';
import { createBenchApp, createMembers, integrationHeaders, logIn, waitCompleted } from '../fixture.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import { benchRow, type BenchRow } from '../report.js';
import { runUploadScenario, UPLOAD_SCENARIOS } from '../upload-scenario.js';

interface Downloaded {
  bytes: number;
  seconds: number;
}

/** GETs a URL and reads the body to its end, keeping nothing but the count. */
export function download(url: string, headers: Record<string, string>): Promise<Downloaded> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url} answered ${res.statusCode}`));
        return;
      }
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ bytes, seconds: (performance.now() - started) / 1000 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export async function downloadScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const server = await startBenchServer(ctx);
  try {
    const app = await createBenchApp(server, 'download');
    const [member] = await createMembers(server, app, 'dl', 1);
    if (member === undefined) throw new Error('no member');
    const token = await logIn(server, app, member);
    const headers = { ...integrationHeaders(app), authorization: `Bearer ${token}` };
    const ceiling = await startCeilingServer('bare-file-server', { BENCH_ROOT: join(server.dataDir, 'blobs') });
    const rows: BenchRow[] = [];
    try {
      for (const variant of UPLOAD_SCENARIOS) {
        const uploaded = await runUploadScenario(server, app, { scenario: variant, sizeBytes: profile.downloadBytes, keepFile: true });
        const stored = await waitCompleted(server, app, uploaded.fileId);
        // Both are served as stored: the encrypted one in its chunked format.
        const storedBytes = variant === 'encrypted' ? encryptedSize(stored.size_bytes) : stored.size_bytes;
        const gatehouseUrl = `${server.baseUrl}/api/integration/files/${uploaded.fileId}/download`;
        const ceilingUrl = `${ceiling.baseUrl}/${stored.storage_path}`;
        const checked = async (url: string, h: Record<string, string>) => {
          const got = await download(url, h);
          if (got.bytes !== storedBytes) throw new Error(`${url} sent ${got.bytes} bytes, ${storedBytes} are stored`);
          return got;
        };
        // One unmeasured read of each: the file in the page cache for both, both processes warm.
        await checked(gatehouseUrl, headers);
        await checked(ceilingUrl, {});
        const runs = await alternate(
          profile.downloadRounds,
          () => checked(gatehouseUrl, headers),
          () => checked(ceilingUrl, {}),
        );
        const rate = (d: Downloaded) => d.bytes / 1e6 / d.seconds;
        ctx.log(`download-${variant}: ${storedBytes} stored bytes, ${profile.downloadRounds} rounds`);
        rows.push(
          benchRow({
            scenario: `download-${variant}`,
            backend: ctx.backendName,
            metric: 'throughput',
            unit: 'MB/s',
            value: median(runs.a.map(rate)),
            ceiling: median(runs.b.map(rate)),
            target: 0.8,
          }),
        );
      }
      return rows;
    } finally {
      await ceiling.stop();
    }
  } finally {
    await server.stop();
  }
}
