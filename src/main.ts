// The composition root: read config, open adapters, build the app, listen, close on signals.
import { mkdirSync } from 'node:fs';
import { loadOrCreateMasterKey } from './adapters/crypto/master-key.js';
import { buildHttpApp } from './adapters/http/server.js';
import { composeDeps } from './compose.js';
import { ConfigError, readConfig } from './config.js';
import { openConfiguredStore } from './open-store.js';

async function main(): Promise<void> {
  const config = readConfig();
  mkdirSync(config.dataDir, { recursive: true });
  const masterKey = config.masterKey ?? loadOrCreateMasterKey(config.dataDir);
  const store = await openConfiguredStore(config);
  const deps = composeDeps({
    store,
    masterKey,
    limits: { lockoutThreshold: config.lockoutThreshold, ipFailureLimit: config.ipFailureLimit },
  });
  const app = await buildHttpApp({ deps, logLevel: config.logLevel, trustProxy: config.trustProxy });

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void close('SIGTERM'));
  process.on('SIGINT', () => void close('SIGINT'));

  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  console.log(`Gatehouse listening on http://${config.host}:${port} (data in ${config.dataDir})`);
  console.log('Create the first owner with: npm run --silent gatehouse -- owner create --email you@example.com --password "<password>"');
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`gatehouse: ${error.message}`);
  } else if ((error as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    console.error(`gatehouse: the address is in use; set HOST or PORT to another one`);
  } else {
    console.error(`gatehouse: failed to start: ${(error as Error)?.message ?? String(error)}`);
  }
  process.exit(1);
});
