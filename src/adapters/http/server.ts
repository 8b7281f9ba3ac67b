import { requestActors } from './request-actor.js';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from '../../application/deps.js';
import { validationError } from '../../domain/errors.js';
import { adminRoutes } from './admin-routes.js';
import { DASHBOARD_HEADERS, dashboardRoutes, defaultDashboardDir, isDashboardUrl } from './dashboard.js';
import { consoleRoutes } from './console/console-routes.js';
import { createSessionCookies, type CookieSecurity } from './console/session-cookie.js';
import { frameworkErrorHandler, registerErrorHandling, sendError } from './errors.js';
import { integrationRoutes } from './integration-routes.js';
import { lingeringClose } from './lingering-close.js';
import { maskLicenseCodes } from './log-redaction.js';
import { declareRequestState } from './request-state.js';
import type { Metrics } from './metrics.js';
import { createReadinessCheck } from './readiness.js';
import { answers } from './answers.js';
import { checkAnswers } from './answer-check.js';
import { MetricsText, OpenApiDocument, Status } from './wire-schemas.js';
import { apiDocsRoutes } from './api-docs.js';
import { collectOpenApi, OPENAPI_PATH } from './openapi.js';
import { gatehouseVersion } from '../../version.js';

export interface HttpOptions {
  deps: Deps;
  /** pino level, or false for no logging (tests). */
  logLevel: string | false;
  /** Proxies whose X-Forwarded-For is honoured. */
  trustProxy: string[];
  /** Where log lines go (stdout when absent). */
  logStream?: { write(line: string): void };
  /** The dashboard's build (default: dist/dashboard at the repository root). */
  dashboardDir?: string;
  /** GATEHOUSE_COOKIE_SECURE (default `auto`). */
  cookieSecure?: CookieSecurity;
  /** Counts every answer; `route`: also serves them at GET /metrics (docs/configuration.md, Metrics). */
  metrics?: { metrics: Metrics; route: boolean };
  /** Tests: every JSON answer is checked against its route's declared schema, and a mismatch is a 500 (answer-check.ts). */
  checkAnswers?: boolean;
}

// Header names whose values are secrets: never logged.
const REDACTED = [
  'req.headers.authorization',
  'req.headers["x-api-secret"]',
  'req.headers["x-api-password"]',
  'req.headers["x-api-license-code"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.body.password',
  'req.body.code',
  'req.body.credentials',
  'req.body.refresh_token',
];

/** Request log lines: license codes are secrets and travel in URLs, so any code-shaped run is
 * masked (log-redaction.ts). Headers (secret ones redacted) only at debug and trace, so info lines
 * stay lean. */
function requestSerializer(withHeaders: boolean) {
  return (req: { method: string; url: string; headers: unknown; ip?: string }) => ({
    method: req.method,
    url: maskLicenseCodes(req.url),
    ip: req.ip,
    ...(withHeaders ? { headers: req.headers } : {}),
  });
}

/** How long any request body but an upload may take to arrive. */
const BODY_DEADLINE_MS = 60_000;
/** How long an upload may take to arrive: an hour, room for a 2 GiB file over a slow link. */
const UPLOAD_DEADLINE_MS = 60 * 60_000;

/** Whether a body follows the request's head: HTTP/1.1 has one only where either header says so. */
function bodyFollows(request: FastifyRequest): boolean {
  const { headers } = request.raw;
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/** Node's requestTimeout is per server, so uploads set it; every other route gets a short deadline
 * for its body here, cleared once the handler runs (downloads may then take as long as they need).
 * A request without a body has nothing to wait for, so most GETs set no timer at all. */
function bodyDeadline(app: FastifyInstance): void {
  // Callback-style hooks: these run on every request, and an async hook costs a promise each.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.routeOptions.config?.upload && bodyFollows(request)) {
      const timer = setTimeout(() => request.raw.destroy(), BODY_DEADLINE_MS);
      timer.unref();
      request.bodyTimer = timer;
    }
    done();
  });
  const clear = (request: FastifyRequest, _reply: unknown, done: () => void) => {
    if (request.bodyTimer !== null) clearTimeout(request.bodyTimer);
    done();
  };
  app.addHook('preHandler', clear);
  app.addHook('onResponse', clear);
}

/** A UTF-16 surrogate without its other half: not a character, and not encodable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a string no stored text may hold, or null when nothing is. */
function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (a lone UTF-16 surrogate is not)';
  return null;
}

/** The path of the first string that cannot be stored, and why; or null. */
function unstorableAt(value: unknown, path: string, depth = 0): { field: string; problem: string } | null {
  if (typeof value === 'string') {
    const problem = unstorable(value);
    return problem === null ? null : { field: path, problem };
  }
  if (value === null || typeof value !== 'object' || depth > 32) return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = unstorableAt(inner, path ? `${path}.${key}` : key, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** NUL (PostgreSQL's text cannot hold it) and lone UTF-16 surrogates (no UTF-8 form, so stored
 * changed, and a hardware id so stored never matches again) are refused at the edge with 422,
 * anywhere in a parameter, query value or JSON body, before a lookup (docs/api.md, API reference). */
function refuseUnstorableText(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const found = unstorableAt(request.params, '') ?? unstorableAt(request.query, '') ?? unstorableAt(request.body, '');
    done(found === null ? undefined : validationError(found.field || 'body', found.problem));
  });
}

export async function buildHttpApp(options: HttpOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      options.logLevel === false
        ? false
        : {
            level: options.logLevel,
            redact: { paths: REDACTED, censor: '[redacted]' },
            serializers: { req: requestSerializer(options.logLevel === 'debug' || options.logLevel === 'trace') },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    trustProxy: options.trustProxy.length > 0 ? options.trustProxy : false,
    bodyLimit: 1024 * 1024,
    // Explicit timeouts: a slow client cannot hold a connection or a request open indefinitely.
    // An idle socket is cut after a minute; a whole request may take up to the upload deadline,
    // and every route that is not an upload must have its body within BODY_DEADLINE_MS.
    connectionTimeout: 60_000,
    requestTimeout: UPLOAD_DEADLINE_MS,
    keepAliveTimeout: 5_000,
    return503OnClosing: true,
    // File names (up to 4096 characters, percent-encoded up to three times longer), usernames
    // and license codes travel in paths; longer parameters answer 414 in our body.
    routerOptions: { maxParamLength: 3 * 4096 },
    // Answered before routing, so before any hook: the dashboard's headers are added here.
    frameworkErrors: (error, request, reply) => {
      if (isDashboardUrl(request.url)) reply.headers(DASHBOARD_HEADERS);
      void frameworkErrorHandler(error, request, reply);
    },
    ajv: {
      // Bodies are taken exactly as sent: no coercion (a number is not a password), nothing stripped.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.headersTimeout = 20_000;

  declareRequestState(app);
  registerErrorHandling(app);
  if (options.checkAnswers) checkAnswers(app);
  // Before any route: the document is made of every route registered after this.
  const openApi = collectOpenApi(app, { version: gatehouseVersion() });
  if (options.metrics !== undefined) {
    const { metrics, route } = options.metrics;
    metrics.observe(app);
    if (route)
      app.get('/metrics', { schema: { response: answers({ 200: MetricsText }) } }, async (_request, reply) => {
        const { contentType, text } = await metrics.scrape();
        return reply.type(contentType).send(text);
      });
  }
  lingeringClose(app);
  requestActors(app);
  bodyDeadline(app);
  refuseUnstorableText(app);

  app.get('/healthz', { schema: { response: answers({ 200: Status }) } }, async () => ({ status: 'ok' as const }));
  const ready = createReadinessCheck(options.deps);
  app.get('/readyz', { schema: { response: answers({ 200: Status }) }, config: { errors: ['SERVICE_UNAVAILABLE'] } }, async (_request, reply) =>
    (await ready()) ? { status: 'ready' as const } : sendError(reply, 'SERVICE_UNAVAILABLE', 'a backing service is unreachable'),
  );

  await app.register(integrationRoutes, { prefix: '/api/integration', deps: options.deps });
  await app.register(adminRoutes, { prefix: '/api/admin', deps: options.deps });
  await app.register(consoleRoutes, { prefix: '/api/console', deps: options.deps, cookies: createSessionCookies(options.cookieSecure ?? 'auto') });
  await dashboardRoutes(app, options.dashboardDir ?? defaultDashboardDir());
  // The API reference (docs/api.md, API reference): the document, and a page that reads it.
  app.get(OPENAPI_PATH, { schema: { response: answers({ 200: OpenApiDocument }) } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(openApi.document()));
  apiDocsRoutes(app);
  return app;
}
