// Temporary probe (not committed): login latency on PostgreSQL before and after 100k rows.
import { createBenchApp, createLicenses, createMembers } from './fixture.js';
import { seedUsers } from './seed-users.js';
import { loadLogin } from './scenarios/login.js';
import { startServer } from './server-process.js';

const url = process.env['PROBE_URL']!;
const rows = Number(process.env['PROBE_ROWS'] ?? 100000);
const env = { DATABASE_URL: url, UV_THREADPOOL_SIZE: '4', GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000000', GATEHOUSE_SIGN_UPS_PER_APPLICATION: '100000000' };
const server = await startServer({ env });
try {
  const app = await createBenchApp(server, 'probe');
  const members = await createMembers(server, app, 'login', 40);
  const setup = { server, app, members };
  await loadLogin(setup, 3);
  const before = await loadLogin(setup, 8);
  console.log('before', before.p50, before.requestsPerSecond);
  const t0 = Date.now();
  await createLicenses(server, app, rows);
  await seedUsers(server, env, app.id, rows);
  console.log('seeded in', (Date.now() - t0) / 1000);
  await loadLogin(setup, 3);
  const after = await loadLogin(setup, 8);
  console.log('after', after.p50, after.requestsPerSecond);
  if (process.env['PROBE_PAUSE']) await new Promise((r) => setTimeout(r, Number(process.env['PROBE_PAUSE'])));
} finally {
  await server.stop();
}
