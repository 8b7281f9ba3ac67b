// The composition root: read config, open adapters, build the app, listen, close on signals.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createWebhookDeliverer } from './application/events/webhook-deliverer.js';
import { createAuditChainer } from './application/events/audit-chainer.js';
import { createMembershipNoticer, MEMBERSHIP_NOTICES_EVERY_MS } from './application/events/membership-notices.js';
import { pruneAuditLog } from './application/events/audit-retention.js';
import { createFileProcessor } from './application/files/file-processor.js';
import { sweepOrphanBlobs } from './application/files/orphan-sweep.js';
import { purgeThrottleCounters, THROTTLE_PURGE_EVERY_MS } from './application/throttle-purge.js';
import { purgeRequestNonces } from './application/integration/request-signature.js';
import { purgeEndedSessions, purgeExpiredBans } from './application/sessions/purge-sessions.js';
import { createCryptoPool } from './adapters/crypto/crypto-pool.js';
import { createMetrics } from './adapters/http/metrics.js';
import { listenForMetrics } from './adapters/http/metrics-server.js';
import { buildHttpApp } from './adapters/http/server.js';
import { boot } from './boot.js';
import { ConfigError, readConfig } from './config.js';
import { assertBlobStoreReachable, describeStorage } from './open-store.js';
import { answerCommandLine } from './server-command-line.js';
import { stopOnSignals, trackRequests } from './shutdown.js';

const SWEEP_EVERY_MS = 60 * 60_000;
/** How often the planner's statistics are checked (docs/choices.md, "Planner statistics"). */
const STATISTICS_EVERY_MS = 15_000;
/** Webhook attempts in flight per instance: each mostly waits on a receiver (up to 15 s). */
const WEBHOOK_CONCURRENCY = 8;

async function main(): Promise<void> {
  const config = readConfig();
  const { deps, close: closeStore } = await boot(config);
  const { store, blobs } = deps;
  const metrics = config.metrics.kind === 'off' ? null : createMetrics(deps);
  const app = await buildHttpApp({
    deps,
    logLevel: config.logLevel,
    trustProxy: config.trustProxy,
    cookieSecure: config.cookieSecure,
    ...(metrics === null ? {} : { metrics: { metrics, route: config.metrics.kind === 'route' } }),
  });
  // Worker threads encrypt and hash while the main thread reads and writes.
  const crypto = createCryptoPool();
  const processor = createFileProcessor(deps, {
    workerId: `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
    concurrency: config.workers,
    pollMs: 1000,
    sealer: crypto.sealer,
    meter: crypto.meter,
    onError: (error, job) => app.log.warn({ err: error, jobId: job?.id, fileId: job?.fileId }, 'file processing attempt failed'),
  });
  // Webhook deliveries (docs/api.md, Webhooks): polled, so a change only ever inserts them.
  const deliverer = createWebhookDeliverer(deps, {
    workerId: `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
    concurrency: WEBHOOK_CONCURRENCY,
    pollMs: 500,
    random: Math.random,
    onError: (error) => app.log.warn({ err: error }, 'webhook delivery failed to reach the queue'),
  });
  // Links committed events into their applications' audit chains (docs/events.md, The hash chain).
  const chainer = createAuditChainer(deps, {
    pollMs: 500,
    onError: (error) => app.log.warn({ err: error }, 'audit chaining failed'),
  });
  // Expiry notices (docs/events.md, membership.expiring): every instance looks; each is sent once.
  const noticer = createMembershipNoticer(deps, {
    pollMs: MEMBERSHIP_NOTICES_EVERY_MS,
    onError: (error) => app.log.warn({ err: error }, 'membership expiry notices failed'),
  });
  const sweep = () =>
    sweepOrphanBlobs(deps).then(
      (removed) => removed > 0 && app.log.info({ removed }, 'orphaned blobs removed'),
      (error: unknown) => app.log.warn({ err: error }, 'orphan sweep failed'),
    );
  const purge = () =>
    Promise.all([
      purgeEndedSessions(deps, config.sessionRetentionDays).then(
        (removed) => removed > 0 && app.log.info({ removed }, 'ended sessions purged'),
        (error: unknown) => app.log.warn({ err: error }, 'session purge failed'),
      ),
      purgeExpiredBans(deps).then(
        (removed) => removed > 0 && app.log.info({ removed }, 'expired bans purged'),
        (error: unknown) => app.log.warn({ err: error }, 'ban purge failed'),
      ),
      config.auditRetentionDays === null
        ? null
        : pruneAuditLog(deps, config.auditRetentionDays).then(
            (removed) => removed > 0 && app.log.info({ removed }, 'audit entries pruned'),
            (error: unknown) => app.log.warn({ err: error }, 'audit purge failed'),
          ),
    ]);
  const sweeper = setInterval(() => void sweep().then(purge), SWEEP_EVERY_MS);
  sweeper.unref();
  // Short-lived records, purged on the throttle's schedule: its counters, and the nonces of
  // signed requests (held for minutes).
  const purgeThrottle = () =>
    Promise.all([
      purgeThrottleCounters(deps).then(
        (counts) => app.log.debug(counts, 'throttle counters purged'),
        (error: unknown) => app.log.warn({ err: error }, 'throttle purge failed'),
      ),
      purgeRequestNonces(deps).then(
        (removed) => app.log.debug({ removed }, 'request nonces purged'),
        (error: unknown) => app.log.warn({ err: error }, 'request nonce purge failed'),
      ),
    ]);
  const purger = setInterval(() => void purgeThrottle(), THROTTLE_PURGE_EVERY_MS);
  purger.unref();
  const refreshStatistics = () =>
    store.refreshStatistics().then(
      (tables) => tables.length > 0 && app.log.info({ tables }, 'planner statistics refreshed'),
      (error: unknown) => app.log.warn({ err: error }, 'planner statistics refresh failed'),
    );
  const statistician = setInterval(() => void refreshStatistics(), STATISTICS_EVERY_MS);
  statistician.unref();

  stopOnSignals({
    app,
    inFlight: trackRequests(app),
    jobsInHand: processor.jobsInHand,
    graceSeconds: config.shutdownGraceSeconds,
    stopWork: async () => {
      clearInterval(sweeper);
      clearInterval(purger);
      clearInterval(statistician);
      // Jobs in hand finish (or, if the process is stopped first, are retaken after their lease).
      await Promise.all([processor.stop(), deliverer.stop(), chainer.stop(), noticer.stop()]);
    },
    closeStore,
    say: (line) => console.log(line),
    exit: (code) => process.exit(code),
  });

  // Checks the bucket or folder (clearing temp files a crash left mid-write).
  await assertBlobStoreReachable(config, blobs);
  await app.listen({ host: config.host, port: config.port });
  if (metrics !== null && config.metrics.kind === 'port') (await listenForMetrics(metrics, config.host, config.metrics.port)).unref();
  processor.start();
  deliverer.start();
  chainer.start();
  noticer.start();
  void sweep().then(purge);
  void refreshStatistics();
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  // One write, the owner hint read first: whoever waits for the first line has the whole banner.
  // The CLI finds this database and master key only through the same variables (or data folder).
  const where = config.databaseUrl === null || config.masterKey === null ? `GATEHOUSE_DATA_DIR=${shellWord(config.dataDir)} ` : '';
  const environment = config.databaseUrl === null ? '' : `, with this server's DATABASE_URL${config.masterKey === null ? '' : ' and GATEHOUSE_MASTER_KEY'} set`;
  const hint =
    (await store.listOwners()).length === 0
      ? // The CLI must open this same data: in the checkout its default is the same ./data.
        `No owner yet. Create the first one (in the checkout${environment}; it asks for a password): ${where}npm run --silent gatehouse -- owner create --email you@example.com`
      : 'Sign in at the dashboard; a lost console token: npm run --silent gatehouse -- owner login --email <email>';
  console.log([`Gatehouse listening on http://${config.host}:${port} (${describeStorage(config)})`, `Dashboard: http://${config.host}:${port}/dashboard/`, hint].join('\n'));
}

/** A path as one word a POSIX shell reads back unchanged. */
const shellWord = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`);

const answered = answerCommandLine(process.argv.slice(2));
if (answered !== null) process.exit(answered);

main().catch((error: unknown) => {
  const { code, syscall, address, port } = (error ?? {}) as NodeJS.ErrnoException & { address?: string; port?: number };
  if (error instanceof ConfigError) {
    console.error(`gatehouse: ${error.message}`);
  } else if (syscall === 'listen') {
    const why = code === 'EADDRINUSE' ? 'the address is already in use' : code === 'EACCES' ? 'this user may not use that port' : (code ?? 'refused');
    console.error(`gatehouse: cannot listen on ${address}:${port}: ${why}; set HOST or PORT to another one`);
  } else {
    console.error(`gatehouse: failed to start: ${(error as Error)?.message ?? String(error)}`);
  }
  process.exit(1);
});
