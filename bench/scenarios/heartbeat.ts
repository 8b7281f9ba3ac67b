// Scenario 8 (issue 43): POST /api/integration/heartbeat over 10,000 live leased sessions, one per
// member, taken in turn by 50 connections, against a bare Fastify route answering the same JSON
// body. Each beat authenticates the token and its user and moves the lease in one statement:
// the write a fleet of clients makes every interval (docs/performance.md, "heartbeat").
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { alternate } from '../alternate.js';
import { startCeilingServer } from '../ceiling-process.js';
import { createBenchApp, integrationHeaders } from '../fixture.js';
import { runLoad } from '../load.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import type { BenchRow } from '../report.js';
import { seedLiveSessions } from '../seed-live-sessions.js';
import { seedUsers } from '../seed-users.js';
import { loadRows } from './app-context.js';

export const HEARTBEAT_PATH = '/api/integration/heartbeat';
const CONNECTIONS = 50;
/** Longer than any run, so no lease lapses while it is measured. */
const INTERVAL_SECONDS = 3600;
const DAY_MS = 86_400_000;

export async function heartbeatScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const server = await startBenchServer(ctx);
  try {
    const app = await createBenchApp(server, 'heartbeat');
    const patched = await fetch(`${server.baseUrl}/api/console/applications/${app.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${app.ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ heartbeat_seconds: INTERVAL_SECONDS, response_signing: false }),
    });
    if (patched.status !== 200) throw new Error(`turning heartbeats on answered ${patched.status}: ${await patched.text()}`);
    const started = performance.now();
    await seedUsers(server, server.env, app.id, profile.heartbeatSessions, (_, now) => ({ activeUntil: now + 30 * DAY_MS, isLifetime: false }));
    const tokens = await seedLiveSessions(server, server.env, app.id, DAY_MS, 2 * INTERVAL_SECONDS * 1000);
    ctx.log(`heartbeat: ${tokens.length} members with a live leased session each, seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const requests = tokens.map((token) => ({ method: 'POST' as const, path: HEARTBEAT_PATH, headers: { ...integrationHeaders(app), authorization: `Bearer ${token}` } }));
    const sample = await fetch(`${server.baseUrl}${HEARTBEAT_PATH}`, { method: 'POST', headers: requests[0]?.headers ?? {} });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`heartbeat answered ${sample.status}: ${body}`);
    const bodyFile = join(server.dataDir, 'heartbeat-body.json');
    await writeFile(bodyFile, body);
    const ceiling = await startCeilingServer('bare-fastify', { BENCH_ROUTE: HEARTBEAT_PATH, BENCH_METHOD: 'POST', BENCH_BODY_FILE: bodyFile });
    try {
      const beats = (seconds: number) => runLoad({ baseUrl: server.baseUrl, connections: CONNECTIONS, durationSeconds: seconds, requests, expectStatus: 200 });
      const ceilingLoad = (seconds: number) =>
        runLoad({ baseUrl: ceiling.baseUrl, connections: CONNECTIONS, durationSeconds: seconds, requests: [{ method: 'POST', path: HEARTBEAT_PATH, headers: {} }], expectStatus: 200 });
      await beats(profile.warmupSeconds);
      await ceilingLoad(profile.warmupSeconds);
      const runs = await alternate(
        profile.rounds,
        () => beats(profile.seconds),
        () => ceilingLoad(profile.seconds),
      );
      // A beat writes, so its floor sits far below app_context's (docs/performance.md, "heartbeat").
      return loadRows('heartbeat', ctx.backendName, runs.a, runs.b, 0.05, 'heartbeats_per_s');
    } finally {
      await ceiling.stop();
    }
  } finally {
    await server.stop();
  }
}
