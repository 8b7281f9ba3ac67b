// Temporary probe (not committed): CPU profile of the server under app_context load.
import { loadAppContext, setUpAppContext } from './scenarios/app-context.js';
import { startServer } from './server-process.js';
const env: Record<string, string> = { GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000000', GATEHOUSE_SIGN_UPS_PER_APPLICATION: '100000000', ...(process.env['PROBE_URL'] ? { DATABASE_URL: process.env['PROBE_URL'] } : {}) };
const server = await startServer({ env, nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] });
try {
  const setup = await setUpAppContext(server, 100, 'probe', { signed: false });
  await loadAppContext(setup, 2);
  const r = await loadAppContext(setup, 6);
  console.log('rps', r.requestsPerSecond);
} finally {
  await server.stop();
}
