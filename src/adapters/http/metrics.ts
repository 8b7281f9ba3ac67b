// Prometheus metrics (docs/configuration.md, Metrics): requests by route template and status, refusals by error
// code, the password work queue, file jobs, the database's load and the process. Labels carry
// route templates, methods, statuses and error codes only, never anything a client wrote.
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Deps } from '../../application/deps.js';
import { jobPhase, type JobPhase } from '../../domain/files.js';

export interface Metrics {
  /** The exposition text and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
  /** Counts every answer of `app` (its onResponse hook). */
  observe(app: FastifyInstance): void;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const THROTTLE_CODES = new Set(['RATE_LIMITED', 'ACCOUNT_LOCKED', 'PASSWORD_QUEUE_FULL']);
const PHASES: JobPhase[] = ['running', 'due', 'retrying'];

/** Per phase, how many jobs are queued and when the oldest was made (`now` when none). */
type JobSummary = Map<JobPhase, { count: number; oldestCreatedAt: number }>;

/** The queued jobs by phase, or null while the database cannot be reached: the job gauges then
 * keep their last values (and /readyz says what is wrong), so the rest of a scrape still answers. */
async function summariseJobs(deps: Pick<Deps, 'store' | 'clock'>): Promise<JobSummary | null> {
  let jobs;
  try {
    jobs = await deps.store.jobTimes();
  } catch {
    return null;
  }
  const now = deps.clock.now();
  const summary: JobSummary = new Map(PHASES.map((p) => [p, { count: 0, oldestCreatedAt: now }]));
  for (const job of jobs) {
    const entry = summary.get(jobPhase(job, now));
    if (entry === undefined) continue;
    entry.count += 1;
    entry.oldestCreatedAt = Math.min(entry.oldestCreatedAt, job.createdAt);
  }
  return summary;
}

export function createMetrics(deps: Pick<Deps, 'store' | 'hasher' | 'clock'>): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'gatehouse_' });

  const requests = new Counter({
    name: 'gatehouse_http_requests_total',
    help: 'Answers, by method, route template (unmatched: no route) and status.',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const latency = new Histogram({
    name: 'gatehouse_http_request_duration_seconds',
    help: 'Time from the request to its answer, by method and route template.',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const refusals = new Counter({
    name: 'gatehouse_error_responses_total',
    help: 'Answers with an error code, by route template and code (docs/api.md, Errors).',
    labelNames: ['route', 'code'],
    registers,
  });
  const authentication = new Counter({
    name: 'gatehouse_auth_refusals_total',
    help: 'Refused authentications (401 and 403 answers), by error code.',
    labelNames: ['code'],
    registers,
  });
  const throttled = new Counter({
    name: 'gatehouse_throttle_refusals_total',
    help: 'Requests refused by the throttle or the password work queue, by error code.',
    labelNames: ['code'],
    registers,
  });
  const banned = new Counter({ name: 'gatehouse_ban_refusals_total', help: 'Requests refused because a ban matched.', registers });
  new Gauge({
    name: 'gatehouse_password_work',
    help: 'argon2 work running and waiting for a hashing thread (docs/security.md, Password work queue).',
    labelNames: ['state'],
    registers,
    collect() {
      const { running, waiting } = deps.hasher.load();
      this.set({ state: 'running' }, running);
      this.set({ state: 'waiting' }, waiting);
    },
  });
  new Gauge({
    name: 'gatehouse_file_jobs',
    help: 'Queued file-processing jobs: running (leased), due, or waiting for a retry.',
    labelNames: ['phase'],
    registers,
    async collect() {
      const summary = await summariseJobs(deps);
      for (const [phase, { count }] of summary ?? []) this.set({ phase }, count);
    },
  });
  new Gauge({
    name: 'gatehouse_file_job_oldest_age_seconds',
    help: 'Age of the oldest queued file-processing job, by phase (0 when there is none).',
    labelNames: ['phase'],
    registers,
    async collect() {
      const now = deps.clock.now();
      const summary = await summariseJobs(deps);
      for (const [phase, { oldestCreatedAt }] of summary ?? []) this.set({ phase }, Math.max(0, now - oldestCreatedAt) / 1000);
    },
  });
  new Gauge({
    name: 'gatehouse_db_operations_in_flight',
    help: 'Database transactions and writes running or waiting for a connection.',
    registers,
    collect() {
      this.set(deps.store.databaseLoad().inFlight);
    },
  });
  new Gauge({
    name: 'gatehouse_db_connections',
    help: 'Connections that carry transactions and writes (SQLite: one writer; PostgreSQL: the pool).',
    registers,
    collect() {
      this.set(deps.store.databaseLoad().connections);
    },
  });

  return {
    async scrape() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
    observe(app) {
      // Callback-style: it runs on every answer, and an async hook costs a promise each.
      app.addHook('onResponse', (request, reply, done) => {
        const method = METHODS.has(request.method) ? request.method : 'OTHER';
        const route = request.routeOptions.url ?? 'unmatched';
        requests.inc({ method, route, status: String(reply.statusCode) });
        latency.observe({ method, route }, reply.elapsedTime / 1000);
        const code = request.answeredErrorCode;
        if (code !== null) {
          refusals.inc({ route, code });
          if (reply.statusCode === 401 || reply.statusCode === 403) authentication.inc({ code });
          if (THROTTLE_CODES.has(code)) throttled.inc({ code });
          if (code === 'BANNED') banned.inc();
        }
        done();
      });
    },
  };
}
