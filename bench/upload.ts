// npm run bench:upload [-- --size <MiB>] [-- --only plain|encrypted]
//
// Starts the built server in its own process on a fresh temp data dir, creates an owner and an
// application, then for each scenario (plain, encrypted) streams a file generated on the fly
// (1 GiB by default) to POST /api/admin/files and waits for COMPLETED. Prints upload and
// processing times, processing throughput and the server's peak RSS growth against the target,
// and writes the rows to bench/results-upload.json. Exits 1 if anything fails or misses its target.
//
// Scenarios share one server, in order: the first upload of a fresh server carries its one-time
// growth (about 35 MiB whatever the file size: V8's young generation growing to its 16 MiB
// semi-spaces under the allocation rate, JIT code, busboy and SQLite warming up); later uploads
// add only a few MiB. Run `--only encrypted` to see the encrypted path from a cold start.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatTable, writeRows } from './report.js';
import { startServer } from './server-process.js';
import {
  createBenchApplication,
  MiB,
  RSS_GROWTH_TARGET,
  runUploadScenario,
  UPLOAD_SCENARIOS,
  uploadRows,
  type UploadScenario,
  type UploadScenarioResult,
} from './upload-scenario.js';

const RESULTS_PATH = fileURLToPath(new URL('../../bench/results-upload.json', import.meta.url));

function parseOptions(argv: string[]): { sizeBytes: number; scenarios: UploadScenario[] } {
  const { values } = parseArgs({ args: argv, options: { size: { type: 'string' }, only: { type: 'string' } }, strict: true });
  const sizeMiB = values.size === undefined ? 1024 : Number(values.size);
  if (!Number.isInteger(sizeMiB) || sizeMiB < 1) throw new Error(`--size must be a whole number of MiB, got ${values.size}`);
  if (values.only !== undefined && !UPLOAD_SCENARIOS.includes(values.only as UploadScenario)) {
    throw new Error(`--only must be one of ${UPLOAD_SCENARIOS.join(', ')}, got ${values.only}`);
  }
  return { sizeBytes: sizeMiB * MiB, scenarios: values.only === undefined ? [...UPLOAD_SCENARIOS] : [values.only as UploadScenario] };
}

const f = (n: number, digits = 2) => n.toFixed(digits);

async function main(): Promise<number> {
  const { sizeBytes, scenarios } = parseOptions(process.argv.slice(2));
  const server = await startServer({ env: { LOG_LEVEL: 'warn' } });
  const interrupted = () => void server.stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const results: UploadScenarioResult[] = [];
  try {
    console.log(`gatehouse upload bench: ${sizeBytes / MiB} MiB per file, server pid ${server.pid} at ${server.baseUrl}, data in ${server.dataDir}`);
    const app = await createBenchApplication(server);
    for (const scenario of scenarios) {
      process.stdout.write(`${scenario}: uploading ${sizeBytes / MiB} MiB... `);
      const result = await runUploadScenario(server, app, { scenario, sizeBytes });
      results.push(result);
      console.log(
        `COMPLETED, size and sha256 verified. RSS baseline ${f(result.baselineRssMiB, 1)} MiB, sampled peak ${f(result.sampledPeakRssMiB, 1)} MiB ` +
          `(${result.samples} samples, longest gap ${result.maxSampleGapMs} ms), VmHWM ${result.hwmPeakRssMiB === null ? 'n/a' : `${f(result.hwmPeakRssMiB, 1)} MiB`}`,
      );
    }
  } catch (error) {
    console.log('');
    console.error(`bench:upload failed: ${(error as Error).message}`);
    console.error(`--- server output (tail) ---\n${server.output()}`);
    return 1;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await server.stop();
  }

  const rows = results.flatMap((r) => uploadRows(r));
  let allPass = true;
  const table = results.map((r) => {
    const pass = r.peakRssGrowthMiB < RSS_GROWTH_TARGET;
    allPass &&= pass;
    return [r.scenario, f(r.uploadSeconds), f(r.processingSeconds), f(r.totalSeconds), f(r.processingMBps, 1), f(r.peakRssGrowthMiB, 1), `< ${RSS_GROWTH_TARGET} MiB`, pass ? 'PASS' : 'FAIL'];
  });
  console.log('');
  console.log(
    formatTable(['scenario', 'upload s', 'processing s', 'total s', 'processing MB/s', 'peak RSS growth MiB', 'target', 'result'], table),
  );
  console.log(`\n(MB = 10^6 bytes; ${sizeBytes} bytes per file; RSS growth = max(sampled VmRSS, VmHWM) − VmRSS before the upload)`);
  await writeRows(RESULTS_PATH, rows);
  console.log(`rows written to ${RESULTS_PATH}`);
  return allPass ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench:upload: ${(error as Error)?.message ?? String(error)}`);
    process.exit(1);
  },
);
