// Scenario 2: POST /api/integration/auth/login (argon2id at the default parameters) against raw
// argon2 verify throughput with the same parameters and the same thread pool size.
import { availableParallelism } from 'node:os';
import { alternate, median } from '../alternate.js';
import { runCeilingScript } from '../ceiling-process.js';
import { createBenchApp, createMembers, integrationHeaders, loginBody, type BenchApp, type Member } from '../fixture.js';
import { runLoad, type LoadResult } from '../load.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import { benchRow, type BenchRow } from '../report.js';
import type { ServerProcess } from '../server-process.js';

export const LOGIN_PATH = '/api/integration/auth/login';
/** Enough logins in flight to keep every thread of the pool busy, with some queued. */
export const LOGIN_CONNECTIONS = 8;

export interface LoginSetup {
  server: ServerProcess;
  app: BenchApp;
  members: Member[];
}

export async function setUpLogin(server: ServerProcess, members: number): Promise<LoginSetup> {
  const app = await createBenchApp(server, 'login');
  return { server, app, members: await createMembers(server, app, 'login', members) };
}

/** Logins in turn by each member on their own device (each replaces that device's last session). */
export function loadLogin(setup: LoginSetup, seconds: number): Promise<LoadResult> {
  const headers = { ...integrationHeaders(setup.app), 'content-type': 'application/json' };
  return runLoad({
    baseUrl: setup.server.baseUrl,
    connections: LOGIN_CONNECTIONS,
    durationSeconds: seconds,
    requests: setup.members.map((m) => ({ method: 'POST', path: LOGIN_PATH, headers, body: loginBody(m) })),
    expectStatus: 200,
  });
}

interface VerifyCeiling {
  verifications: number;
  seconds: number;
  perSecond: number;
}

/**
 * Raw verifications kept in flight: one per core (within the thread pool), the most that run at
 * once without taking turns; measured here, 4 at once on 2 cores verify about a quarter fewer a
 * second than 2 at once, so this is the best the machine does, and what the server also allows.
 */
export const rawInFlight = (ctx: BenchContext) => Math.max(1, Math.min(ctx.threadPoolSize, availableParallelism()));

export function rawVerify(ctx: BenchContext, seconds: number): Promise<VerifyCeiling> {
  return runCeilingScript<VerifyCeiling>('argon2-verify', {
    UV_THREADPOOL_SIZE: String(ctx.threadPoolSize),
    BENCH_SECONDS: String(seconds),
    BENCH_IN_FLIGHT: String(rawInFlight(ctx)),
  });
}

/**
 * Rounds of `load` alternated with raw argon2 verification (the ceiling): the load's rate against
 * the ceiling's, and its latencies. The login and redemption scenarios measure alike.
 */
export async function againstRawVerify(ctx: BenchContext, row: { scenario: string; metric: string; target: number }, load: (seconds: number) => Promise<LoadResult>): Promise<BenchRow[]> {
  const { profile } = ctx;
  const runs = await alternate(
    profile.rounds,
    () => load(profile.seconds),
    () => rawVerify(ctx, profile.seconds),
  );
  const { scenario, metric, target } = row;
  const backend = ctx.backendName;
  return [
    benchRow({ scenario, backend, metric, unit: '1/s', value: median(runs.a.map((r) => r.requestsPerSecond)), ceiling: median(runs.b.map((r) => r.perSecond)), target }),
    benchRow({ scenario, backend, metric: 'p50_latency', unit: 'ms', value: median(runs.a.map((r) => r.p50)) }),
    benchRow({ scenario, backend, metric: 'p99_latency', unit: 'ms', value: median(runs.a.map((r) => r.p99)) }),
  ];
}

export async function loginScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const server = await startBenchServer(ctx);
  try {
    const setup = await setUpLogin(server, profile.loginMembers);
    ctx.log(`login: ${setup.members.length} members, ${LOGIN_CONNECTIONS} connections; thread pool ${ctx.threadPoolSize}, raw verifications in flight ${rawInFlight(ctx)}`);
    await loadLogin(setup, profile.warmupSeconds);
    return await againstRawVerify(ctx, { scenario: 'login', metric: 'logins_per_s', target: 0.85 }, (seconds) => loadLogin(setup, seconds));
  } finally {
    await server.stop();
  }
}
