// Scenario 5: the app_context and login loads of scenarios 1 and 2 on a server whose database
// holds 100,000 more users and 100,000 more licenses, against the same loads on a server without
// them, in turns. Both servers run throughout; the latency ratio is large case over small case.
import { alternate, median } from '../alternate.js';
import { createLicenses, createMembers } from '../fixture.js';
import { type LoadResult } from '../load.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import { benchRow, type BenchRow } from '../report.js';
import { seedUsers } from '../seed-users.js';
import type { ServerProcess } from '../server-process.js';
import { loadAppContext, setUpAppContext, type AppContextSetup } from './app-context.js';
import { loadLogin, type LoginSetup } from './login.js';

interface Case {
  context: AppContextSetup;
  login: LoginSetup;
}

/** One application serving both loads (the seeded rows go into it, where its queries look). */
async function setUpCase(server: ServerProcess, ctx: BenchContext): Promise<Case> {
  const context = await setUpAppContext(server, ctx.profile.contextMembers, 'app-context', { signed: true });
  const members = await createMembers(server, context.app, 'login', ctx.profile.loginMembers);
  return { context, login: { server, app: context.app, members } };
}

function rows(scenario: string, backend: string, small: LoadResult[], large: LoadResult[]): BenchRow[] {
  const m = (xs: LoadResult[], pick: (r: LoadResult) => number) => median(xs.map(pick));
  return [
    benchRow({ scenario, backend, metric: 'latency_ratio', unit: 'ms', value: m(large, (r) => r.p50), ceiling: m(small, (r) => r.p50), target: 1.5 }),
    benchRow({ scenario, backend, metric: 'p99_latency', unit: 'ms', value: m(large, (r) => r.p99), ceiling: m(small, (r) => r.p99) }),
    benchRow({ scenario, backend, metric: 'requests_per_s', unit: '1/s', value: m(large, (r) => r.requestsPerSecond), ceiling: m(small, (r) => r.requestsPerSecond) }),
  ];
}

export async function scaleScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const smallServer = await startBenchServer(ctx);
  try {
    const largeServer = await startBenchServer(ctx);
    try {
      const small = await setUpCase(smallServer, ctx);
      const large = await setUpCase(largeServer, ctx);
      const started = performance.now();
      await createLicenses(largeServer, large.context.app, profile.scaleRows);
      await seedUsers(largeServer, largeServer.env, large.context.app.id, profile.scaleRows);
      ctx.log(`scale: ${profile.scaleRows} users and ${profile.scaleRows} licenses added to the large case in ${((performance.now() - started) / 1000).toFixed(1)} s`);

      await loadAppContext(small.context, profile.warmupSeconds);
      await loadAppContext(large.context, profile.warmupSeconds);
      const context = await alternate(
        profile.rounds,
        () => loadAppContext(small.context, profile.seconds),
        () => loadAppContext(large.context, profile.seconds),
      );
      await loadLogin(small.login, profile.warmupSeconds);
      await loadLogin(large.login, profile.warmupSeconds);
      const login = await alternate(
        profile.rounds,
        () => loadLogin(small.login, profile.seconds),
        () => loadLogin(large.login, profile.seconds),
      );
      return [...rows('scale-app_context', ctx.backendName, context.a, context.b), ...rows('scale-login', ctx.backendName, login.a, login.b)];
    } finally {
      await largeServer.stop();
    }
  } finally {
    await smallServer.stop();
  }
}
