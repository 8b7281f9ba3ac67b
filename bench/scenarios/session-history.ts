// Scenario 7 (security review): logins of a member whose account already holds a million ended
// sessions, against the same logins on a server without that history, in turns (both servers run
// throughout). Every login looks for its user's live sessions inside its write transaction; with
// the history indexed away it costs the same however long the history is. The ratio is large
// case over small case, as in the scale scenario.
import { alternate, median } from '../alternate.js';
import { type LoadResult } from '../load.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer, type BenchServer } from '../bench-server.js';
import { benchRow, type BenchRow } from '../report.js';
import { seedSessions } from '../seed-sessions.js';
import { loadLogin, setUpLogin, type LoginSetup } from './login.js';

/** One member logging in again and again from one device, as one license code in wide use does. */
const setUpCase = (server: BenchServer) => setUpLogin(server, 1);

export async function sessionHistoryScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const smallServer = await startBenchServer(ctx);
  try {
    const largeServer = await startBenchServer(ctx);
    try {
      const small: LoginSetup = await setUpCase(smallServer);
      const large: LoginSetup = await setUpCase(largeServer);
      const member = large.members[0];
      if (member === undefined) throw new Error('no member to give a session history');
      const started = performance.now();
      await seedSessions(largeServer, largeServer.env, large.app.id, member.username, profile.sessionRows);
      ctx.log(`session_history: ${profile.sessionRows} ended sessions added to one member in ${((performance.now() - started) / 1000).toFixed(1)} s`);

      await loadLogin(small, profile.warmupSeconds);
      await loadLogin(large, profile.warmupSeconds);
      const runs = await alternate(
        profile.rounds,
        () => loadLogin(small, profile.seconds),
        () => loadLogin(large, profile.seconds),
      );
      const m = (xs: LoadResult[], pick: (r: LoadResult) => number) => median(xs.map(pick));
      const scenario = 'session_history';
      const backend = ctx.backendName;
      return [
        benchRow({ scenario, backend, metric: 'latency_ratio', unit: 'ms', value: m(runs.b, (r) => r.p50), ceiling: m(runs.a, (r) => r.p50), target: 1.5 }),
        benchRow({ scenario, backend, metric: 'p99_latency', unit: 'ms', value: m(runs.b, (r) => r.p99), ceiling: m(runs.a, (r) => r.p99) }),
        benchRow({ scenario, backend, metric: 'logins_per_s', unit: '1/s', value: m(runs.b, (r) => r.requestsPerSecond), ceiling: m(runs.a, (r) => r.requestsPerSecond) }),
      ];
    } finally {
      await largeServer.stop();
    }
  } finally {
    await smallServer.stop();
  }
}
