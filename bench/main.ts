// npm run bench [-- --scenario <names>] [-- --db sqlite|postgres|all] [-- --quick]
//
// Measures Gatehouse's main paths against the best this machine does in the same run: each
// scenario starts the built server (what `npm start` runs) in its own process on a fresh data
// folder, and runs its ceiling in turns with it. Prints a table and writes bench/results.json.
// Exits 1 when a scenario cannot run; a missed target is shown (FAIL) but does not fail the run,
// unless --strict is given. --quick judges no target ("n/a (quick)").
import { availableParallelism, cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DBS, type Db } from './backend.js';
import { FULL, QUICK, type BenchContext } from './profile.js';
import { formatTable, meetsTarget, resultText, targetText, writeRows, type BenchRow } from './report.js';
import { appContextScenario } from './scenarios/app-context.js';
import { appContextSignedScenario } from './scenarios/app-context-signed.js';
import { downloadScenario } from './scenarios/download.js';
import { heartbeatScenario } from './scenarios/heartbeat.js';
import { loginScenario } from './scenarios/login.js';
import { redeemScenario } from './scenarios/redeem.js';
import { scaleScenario } from './scenarios/scale.js';
import { sessionHistoryScenario } from './scenarios/session-history.js';
import { signUpFloodScenario } from './scenarios/sign-up-flood.js';
import { uploadScenario } from './scenarios/upload.js';

const RESULTS_PATH = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

type Scenario = (ctx: BenchContext) => Promise<BenchRow[]>;
const SCENARIOS: Record<string, Scenario> = {
  app_context: appContextScenario,
  app_context_signed: appContextSignedScenario,
  login: loginScenario,
  redeem: redeemScenario,
  download: downloadScenario,
  upload: uploadScenario,
  scale: scaleScenario,
  sign_up_flood: signUpFloodScenario,
  session_history: sessionHistoryScenario,
  heartbeat: heartbeatScenario,
};

interface Options {
  scenarios: string[];
  dbs: Db[];
  quick: boolean;
  strict: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: { scenario: { type: 'string' }, db: { type: 'string' }, quick: { type: 'boolean' }, strict: { type: 'boolean' } },
    strict: true,
  });
  const names = Object.keys(SCENARIOS);
  const scenarios = values.scenario === undefined ? names : values.scenario.split(',').map((s) => s.trim());
  for (const s of scenarios) if (!names.includes(s)) throw new Error(`--scenario must be among ${names.join(', ')}; got ${s}`);
  const db = values.db ?? 'all';
  if (db !== 'all' && !DBS.includes(db as Db)) throw new Error(`--db must be sqlite, postgres or all; got ${db}`);
  return { scenarios, dbs: db === 'all' ? [...DBS] : [db as Db], quick: values.quick ?? false, strict: values.strict ?? false };
}

const show = (n: number | null) => (n === null ? '' : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(3));

export function machineLine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `${availableParallelism()} CPUs (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${process.platform} ${process.arch}`;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const profile = options.quick ? QUICK : FULL;
  const threadPoolSize = Number(process.env['UV_THREADPOOL_SIZE'] ?? 4) || 4;
  const log = (line: string) => console.log(`  ${line}`);
  console.log(`gatehouse bench${options.quick ? ' (quick)' : ''}: ${options.scenarios.join(', ')} on ${options.dbs.join(', ')}`);
  console.log(`machine: ${machineLine()}`);
  const rows: BenchRow[] = [];
  let failed = false;
  for (const db of options.dbs) {
    const backendName = `${db}+local`;
    for (const name of options.scenarios) {
      const started = performance.now();
      console.log(`${name} on ${backendName}...`);
      try {
        rows.push(...(await (SCENARIOS[name] as Scenario)({ db, backendName, profile, threadPoolSize, log })));
        log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      } catch (error) {
        failed = true;
        console.error(`  ${name} on ${backendName} failed: ${(error as Error).stack ?? String(error)}`);
      }
    }
  }

  const table = rows.map((r) => [r.scenario, r.backend, r.metric, r.unit, show(r.value), show(r.ceiling), show(r.ratio), targetText(r), resultText(r, options.quick)]);
  console.log('');
  console.log(formatTable(['scenario', 'backend', 'metric', 'unit', 'value', 'ceiling', 'ratio', 'target', 'result'], table));
  await writeRows(RESULTS_PATH, rows);
  // A quick run judges no target (its figures are a smoke test's), so --strict has nothing to fail on.
  const missed = options.quick ? [] : rows.filter((r) => !meetsTarget(r));
  const judged = options.quick ? 'none judged (quick)' : `${missed.length} missed`;
  console.log(`\n${rows.length} figures, ${rows.filter((r) => r.target !== null).length} with targets, ${judged}; written to ${RESULTS_PATH}`);
  if (failed) return 1;
  return options.strict && missed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench: ${(error as Error)?.message ?? String(error)}`);
    process.exit(1);
  },
);
