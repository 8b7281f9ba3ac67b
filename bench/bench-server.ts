// A server for one scenario: a fresh data folder, and on PostgreSQL a fresh database, dropped
// when the server stops, so that no scenario sees another's rows.
import { prepareBackend } from './backend.js';
import type { BenchContext } from './profile.js';
import { startServer, type ServerProcess } from './server-process.js';

export interface BenchServer extends ServerProcess {
  /** The server's environment (its database), for anything that opens its store. */
  env: Record<string, string>;
}

export async function startBenchServer(ctx: BenchContext): Promise<BenchServer> {
  const backend = await prepareBackend(ctx.db);
  // The bench signs every member up from 127.0.0.1: the sign-up limits are not what it measures.
  const env = { ...backend.env, UV_THREADPOOL_SIZE: String(ctx.threadPoolSize), GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000000', GATEHOUSE_SIGN_UPS_PER_APPLICATION: '100000000' };
  let server: ServerProcess;
  try {
    server = await startServer({ env });
  } catch (error) {
    await backend.drop();
    throw error;
  }
  return {
    ...server,
    env,
    stop: async () => {
      try {
        await server.stop();
      } finally {
        await backend.drop();
      }
    },
  };
}
