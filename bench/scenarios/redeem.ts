// Scenario: POST /api/integration/activate_license by existing members, each already holding
// HELD_LICENSES licenses, each request redeeming a fresh code; against raw argon2 verify, as the
// login scenario (a redemption verifies the member's password once).
import { availableParallelism } from 'node:os';
import { createBenchApp, createLicenses, createMembers, integrationHeaders, type BenchApp, type Member } from '../fixture.js';
import { runLoad, type LoadResult } from '../load.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import type { BenchRow } from '../report.js';
import type { ServerProcess } from '../server-process.js';
import { againstRawVerify, LOGIN_CONNECTIONS, rawInFlight } from './login.js';

const REDEEM_PATH = '/api/integration/activate_license';
/** Licenses each member holds before the load (the load adds to them): the ban check must not grow with them. */
export const HELD_LICENSES = 20;
/** More codes a second and core than argon2 verifies at the default parameters, so a load never runs out. */
const CODES_PER_SECOND_AND_CORE = 150;

interface RedeemSetup {
  server: ServerProcess;
  app: BenchApp;
  members: Member[];
}

async function setUpRedeem(server: ServerProcess, count: number): Promise<RedeemSetup> {
  const app = await createBenchApp(server, 'redeem');
  const members = await createMembers(server, app, 'redeem', count);
  const codes = await createLicenses(server, app, count * (HELD_LICENSES - 1));
  const headers = { ...integrationHeaders(app), 'content-type': 'application/json' };
  // Every member redeems the rest of their licenses, a few members at a time (argon2 work each).
  for (let i = 0; i < members.length; i += 4) {
    await Promise.all(
      members.slice(i, i + 4).map(async (m, j) => {
        for (let k = 0; k < HELD_LICENSES - 1; k++) {
          const code = codes[(i + j) * (HELD_LICENSES - 1) + k];
          const response = await fetch(`${server.baseUrl}${REDEEM_PATH}`, { method: 'POST', headers, body: redeemBody(m, code as string) });
          if (response.status !== 200) throw new Error(`redeeming a license for ${m.username} answered ${response.status}: ${await response.text()}`);
        }
      }),
    );
  }
  return { server, app, members };
}

const redeemBody = (m: Member, code: string) => JSON.stringify({ code, username: m.username, password: m.password, hardware_id: m.hardwareId });

/** Redemptions in turn by each member on their own device, each with a code never used. */
async function loadRedeem(setup: RedeemSetup, seconds: number): Promise<LoadResult> {
  const codes = await createLicenses(setup.server, setup.app, Math.ceil(seconds * CODES_PER_SECOND_AND_CORE * availableParallelism()));
  const headers = { ...integrationHeaders(setup.app), 'content-type': 'application/json' };
  return runLoad({
    baseUrl: setup.server.baseUrl,
    connections: LOGIN_CONNECTIONS,
    durationSeconds: seconds,
    requests: (n) => ({ method: 'POST', path: REDEEM_PATH, headers, body: redeemBody(setup.members[n % setup.members.length] as Member, codes[n % codes.length] as string) }),
    expectStatus: 200,
  });
}

export async function redeemScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const server = await startBenchServer(ctx);
  try {
    const setup = await setUpRedeem(server, profile.loginMembers);
    ctx.log(`redeem: ${setup.members.length} members holding ${HELD_LICENSES} licenses each, ${LOGIN_CONNECTIONS} connections; raw verifications in flight ${rawInFlight(ctx)}`);
    // Long enough for every connection's first answer: a redemption queued behind seven others
    // on a busy machine takes longer than a quick run's warm-up.
    await loadRedeem(setup, Math.max(2, profile.warmupSeconds));
    return await againstRawVerify(ctx, { scenario: 'redeem', metric: 'redemptions_per_s', target: ctx.db === 'sqlite' ? 0.85 : 0.75 }, (seconds) => loadRedeem(setup, seconds));
  } finally {
    await server.stop();
  }
}
