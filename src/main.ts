// The composition root: read config, open adapters, build the app, listen, close on signals.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { createFileProcessor } from './application/files/file-processor.js';
import { sweepOrphanBlobs } from './application/files/orphan-sweep.js';
import { createEncryptStream } from './adapters/crypto/file-encryption.js';
import { createDigestPool } from './adapters/crypto/off-thread-digest.js';
import { loadOrCreateMasterKey } from './adapters/crypto/master-key.js';
import { buildHttpApp } from './adapters/http/server.js';
import { composeDeps } from './compose.js';
import { assertMasterKeyMatches } from './startup-checks.js';
import { ConfigError, readConfig } from './config.js';
import { assertBlobStoreReachable, assertSupported, openConfiguredBlobStore, openConfiguredStore } from './open-store.js';

const SWEEP_EVERY_MS = 60 * 60_000;

async function main(): Promise<void> {
  const config = readConfig();
  assertSupported(config);
  mkdirSync(config.dataDir, { recursive: true });
  const masterKey = config.masterKey ?? loadOrCreateMasterKey(config.dataDir);
  const store = await openConfiguredStore(config);
  const blobs = openConfiguredBlobStore(config);
  const deps = composeDeps({
    store,
    blobs,
    masterKey,
    limits: { lockoutThreshold: config.lockoutThreshold, ipFailureLimit: config.ipFailureLimit },
    maxUploadBytes: config.maxUploadBytes,
    jobLeaseMs: config.jobLeaseMs,
    passwordQueuePerApplication: config.passwordQueue,
  });
  await assertMasterKeyMatches(deps);
  const app = await buildHttpApp({ deps, logLevel: config.logLevel, trustProxy: config.trustProxy, cookieSecure: config.cookieSecure });
  const processor = createFileProcessor(deps, {
    workerId: `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
    concurrency: config.workers,
    pollMs: 1000,
    encryptStream: createEncryptStream,
    // Worker threads hash while the main thread reads, encrypts and writes.
    meter: createDigestPool().meter,
    onError: (error, job) => app.log.warn({ err: error, jobId: job?.id, fileId: job?.fileId }, 'file processing attempt failed'),
  });
  deps.files.onJobQueued = () => processor.wake();
  const sweep = () =>
    sweepOrphanBlobs(deps).then(
      (removed) => removed > 0 && app.log.info({ removed }, 'orphaned blobs removed'),
      (error: unknown) => app.log.warn({ err: error }, 'orphan sweep failed'),
    );
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    clearInterval(sweeper);
    await app.close();
    // Jobs in hand finish (or, if the process is killed first, are retaken after their lease).
    await processor.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void close('SIGTERM'));
  process.on('SIGINT', () => void close('SIGINT'));

  // Checks the bucket or folder (clearing temp files a crash left mid-write).
  await assertBlobStoreReachable(config, blobs);
  await app.listen({ host: config.host, port: config.port });
  processor.start();
  void sweep();
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  console.log(`Gatehouse listening on http://${config.host}:${port} (data in ${config.dataDir})`);
  console.log(`Dashboard: http://${config.host}:${port}/dashboard/`);
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
