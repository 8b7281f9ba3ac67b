import { loadLogin, setUpLogin } from './scenarios/login.js';
import { startServer } from './server-process.js';
const env: Record<string, string> = { UV_THREADPOOL_SIZE: '4', GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000000', GATEHOUSE_SIGN_UPS_PER_APPLICATION: '100000000', ...(process.env['PROBE_URL'] ? { DATABASE_URL: process.env['PROBE_URL'] } : {}) };
const server = await startServer({ env, nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof2'] });
try {
  const setup = await setUpLogin(server, 40);
  await loadLogin(setup, 2);
  const r = await loadLogin(setup, 6);
  console.log('rps', r.requestsPerSecond, 'p50', r.p50);
} finally {
  await server.stop();
}
