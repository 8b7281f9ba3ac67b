// Scenario 1: GET /api/integration/app_context with a session token (10 variables, 5 files, 2
// announcements, members with an active membership), 50 connections, against a bare Fastify
// route answering the same JSON body. Response signing is off for this application, so the figure
// is the request path itself; what signing adds is scenario 1b (app_context_signed).
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { alternate, median } from '../alternate.js';
import { startCeilingServer } from '../ceiling-process.js';
import { addContent, createBenchApp, createMembers, integrationHeaders, logIn, type BenchApp } from '../fixture.js';
import { runLoad, type LoadResult } from '../load.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import { benchRow, type BenchRow } from '../report.js';
import type { ServerProcess } from '../server-process.js';

export const APP_CONTEXT_PATH = '/api/integration/app_context';
export const APP_CONTEXT_CONNECTIONS = 50;

export interface AppContextSetup {
  server: ServerProcess;
  app: BenchApp;
  tokens: string[];
}

/** The application (response signing on or off), its content and logged-in members. */
export async function setUpAppContext(server: ServerProcess, members: number, name: string, options: { signed: boolean }): Promise<AppContextSetup> {
  const app = await createBenchApp(server, name);
  if (!options.signed) {
    const patched = await fetch(`${server.baseUrl}/api/console/applications/${app.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${app.ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ response_signing: false }),
    });
    if (patched.status !== 200) throw new Error(`turning response signing off answered ${patched.status}: ${await patched.text()}`);
  }
  await addContent(server, app);
  const created = await createMembers(server, app, 'ctx', members);
  const tokens: string[] = [];
  for (const member of created) tokens.push(await logIn(server, app, member));
  return { server, app, tokens };
}

/**
 * The app_context load over the members' sessions. With `nonces`, each request carries a fresh
 * x-nonce, as a client pinning the application's key sends (the signature binds its answer to it).
 */
export function loadAppContext(setup: AppContextSetup, seconds: number, options: { nonces?: boolean } = {}): Promise<LoadResult> {
  const requests = setup.tokens.map((token) => ({
    method: 'GET' as const,
    path: APP_CONTEXT_PATH,
    headers: { ...integrationHeaders(setup.app), authorization: `Bearer ${token}` },
  }));
  // A random prefix a run and a counter: fresh every request, and cheap for the load generator.
  const run = randomBytes(6).toString('hex');
  const withNonce = (n: number) => {
    const request = requests[n % requests.length] as (typeof requests)[number];
    return { ...request, headers: { ...request.headers, 'x-nonce': `${run}-${String(n).padStart(8, '0')}` } };
  };
  return runLoad({
    baseUrl: setup.server.baseUrl,
    connections: APP_CONTEXT_CONNECTIONS,
    durationSeconds: seconds,
    requests: options.nonces === true ? withNonce : requests,
    expectStatus: 200,
  });
}

/** Throughput and latency rows of a measured side against its ceiling (medians over rounds). */
export function loadRows(scenario: string, backend: string, measured: LoadResult[], ceiling: LoadResult[], target: number | null, rateMetric: string): BenchRow[] {
  const m = (xs: LoadResult[], pick: (r: LoadResult) => number) => median(xs.map(pick));
  return [
    benchRow({ scenario, backend, metric: rateMetric, unit: '1/s', value: m(measured, (r) => r.requestsPerSecond), ceiling: m(ceiling, (r) => r.requestsPerSecond), target }),
    benchRow({ scenario, backend, metric: 'p50_latency', unit: 'ms', value: m(measured, (r) => r.p50), ceiling: m(ceiling, (r) => r.p50) }),
    benchRow({ scenario, backend, metric: 'p99_latency', unit: 'ms', value: m(measured, (r) => r.p99), ceiling: m(ceiling, (r) => r.p99) }),
  ];
}

export async function appContextScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const server = await startBenchServer(ctx);
  try {
    const setup = await setUpAppContext(server, profile.contextMembers, 'app-context', { signed: false });
    // The ceiling answers with a body the server itself gave.
    const sample = await fetch(`${server.baseUrl}${APP_CONTEXT_PATH}`, {
      headers: { ...integrationHeaders(setup.app), authorization: `Bearer ${setup.tokens[0]}` },
    });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`app_context answered ${sample.status}: ${body}`);
    const bodyFile = join(server.dataDir, 'app-context-body.json');
    await writeFile(bodyFile, body);
    const ceiling = await startCeilingServer('bare-fastify', { BENCH_ROUTE: APP_CONTEXT_PATH, BENCH_BODY_FILE: bodyFile });
    try {
      ctx.log(`app_context: ${body.length} bytes a response; ${APP_CONTEXT_CONNECTIONS} connections`);
      const ceilingLoad = (seconds: number) =>
        runLoad({ baseUrl: ceiling.baseUrl, connections: APP_CONTEXT_CONNECTIONS, durationSeconds: seconds, requests: [{ method: 'GET', path: APP_CONTEXT_PATH, headers: {} }], expectStatus: 200 });
      await loadAppContext(setup, profile.warmupSeconds);
      await ceilingLoad(profile.warmupSeconds);
      const runs = await alternate(
        profile.rounds,
        () => loadAppContext(setup, profile.seconds),
        () => ceilingLoad(profile.seconds),
      );
      const target = ctx.db === 'sqlite' ? 0.5 : 0.35;
      return loadRows('app_context', ctx.backendName, runs.a, runs.b, target, 'requests_per_s');
    } finally {
      await ceiling.stop();
    }
  } finally {
    await server.stop();
  }
}
