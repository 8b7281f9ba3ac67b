// Scenario 6 (security review): a sign-up flood on one application against the logins of another
// owner's application on the same server. Application A takes new accounts as fast as 32
// connections send them (the sign-up limits lifted, as an attacker with many addresses would have
// them); application B's members log in as in scenario 2. B's login latency under the flood is set
// against the same load without it, in turns. The argon2 work is queued per application and served
// in turns (docs/security.md, Security notes: Password work queue), so B keeps about half the hashing
// capacity however deep A's queue is: its closed-loop latency should at most about double.
import { randomBytes } from 'node:crypto';
import { alternate, median } from '../alternate.js';
import { createBenchApp, integrationHeaders, type BenchApp } from '../fixture.js';
import { runLoad, type LoadResult } from '../load.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import { benchRow, type BenchRow } from '../report.js';
import type { ServerProcess } from '../server-process.js';
import { loadLogin, setUpLogin, type LoginSetup } from './login.js';

const SIGN_UP_PATH = '/api/integration/sign_up';
const FLOOD_CONNECTIONS = 32;

/** New accounts on `app` for `seconds`; a full password queue (429 PASSWORD_QUEUE_FULL) is an expected answer. */
function flood(server: ServerProcess, app: BenchApp, seconds: number): Promise<LoadResult> {
  const headers = { ...integrationHeaders(app), 'content-type': 'application/json' };
  const run = randomBytes(4).toString('hex');
  return runLoad({
    baseUrl: server.baseUrl,
    connections: FLOOD_CONNECTIONS,
    durationSeconds: seconds,
    requests: (n) => ({
      method: 'POST',
      path: SIGN_UP_PATH,
      headers,
      body: JSON.stringify({ username: `flood-${run}-${n}`, password: `pw-flood-${n}`, hardware_id: `hw-flood-${run}-${n}` }),
    }),
    expectStatus: [201, 429],
  });
}

interface Flooded {
  login: LoadResult;
  flood: LoadResult;
}

async function loginUnderFlood(setup: LoginSetup, target: BenchApp, seconds: number): Promise<Flooded> {
  // The flood starts first and outlasts the logins, so that every measured login meets a full queue on A.
  const flooding = flood(setup.server, target, seconds + 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const login = await loadLogin(setup, seconds);
  return { login, flood: await flooding };
}

export async function signUpFloodScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const server = await startBenchServer(ctx);
  try {
    const target = await createBenchApp(server, 'flooded');
    const setup = await setUpLogin(server, profile.loginMembers);
    ctx.log(`sign_up_flood: ${FLOOD_CONNECTIONS} connections signing up on one application, ${setup.members.length} members logging in on another`);
    await loadLogin(setup, profile.warmupSeconds);
    const runs = await alternate(
      profile.rounds,
      () => loginUnderFlood(setup, target, profile.seconds),
      () => loadLogin(setup, profile.seconds),
    );
    const flooded = runs.a.map((r) => r.login);
    const floods = runs.a.map((r) => r.flood);
    const m = (xs: LoadResult[], pick: (r: LoadResult) => number) => median(xs.map(pick));
    const accepted = (r: LoadResult) => (r.statuses['201'] ?? 0) / (r.requests / r.requestsPerSecond);
    const scenario = 'sign_up_flood';
    const backend = ctx.backendName;
    ctx.log(`sign_up_flood: flood answers ${floods.map((r) => JSON.stringify(r.statuses)).join(', ')}`);
    return [
      benchRow({ scenario, backend, metric: 'latency_ratio', unit: 'ms', value: m(flooded, (r) => r.p50), ceiling: m(runs.b, (r) => r.p50), target: 2.5 }),
      benchRow({ scenario, backend, metric: 'p99_latency', unit: 'ms', value: m(flooded, (r) => r.p99), ceiling: m(runs.b, (r) => r.p99) }),
      benchRow({ scenario, backend, metric: 'logins_per_s', unit: '1/s', value: m(flooded, (r) => r.requestsPerSecond), ceiling: m(runs.b, (r) => r.requestsPerSecond) }),
      benchRow({ scenario, backend, metric: 'flood_sign_ups_per_s', unit: '1/s', value: m(floods, accepted) }),
    ];
  } finally {
    await server.stop();
  }
}
