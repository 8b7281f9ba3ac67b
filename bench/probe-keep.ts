import { loadAppContext, setUpAppContext } from './scenarios/app-context.js';
import { startServer } from './server-process.js';
const env: Record<string, string> = { GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000000', GATEHOUSE_SIGN_UPS_PER_APPLICATION: '100000000' };
const server = await startServer({ env, keepDataDir: true });
try {
  const setup = await setUpAppContext(server, 100, 'probe', { signed: false });
  const r = await loadAppContext(setup, 3);
  console.log('rps', r.requestsPerSecond, server.dataDir);
} finally {
  await server.stop();
}
