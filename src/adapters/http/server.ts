import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from '../../application/deps.js';
import { canonicalLicenseCode } from '../../domain/license.js';
import { adminRoutes } from './admin-routes.js';
import { consoleRoutes } from './console/console-routes.js';
import { frameworkErrorHandler, registerErrorHandling, sendError } from './errors.js';
import { integrationRoutes } from './integration-routes.js';

export interface HttpOptions {
  deps: Deps;
  /** pino level, or false for no logging (tests). */
  logLevel: string | false;
  /** Proxies whose X-Forwarded-For is honoured. */
  trustProxy: string[];
  /** Where log lines go (stdout when absent). */
  logStream?: { write(line: string): void };
}

// Header names whose values are secrets: never logged.
const REDACTED = [
  'req.headers.authorization',
  'req.headers["x-api-secret"]',
  'req.headers["x-api-password"]',
  'req.headers["x-api-license-code"]',
  'req.body.password',
  'req.body.code',
  'req.body.credentials',
];

/**
 * Request log lines: license codes travel in paths (admin lookup, console licenses) and are
 * secrets, so any path segment that reads as one is masked. Headers (secret ones redacted) only
 * at debug and trace, so info lines stay lean.
 */
function requestSerializer(withHeaders: boolean) {
  return (req: { method: string; url: string; headers: unknown; ip?: string }) => ({
    method: req.method,
    url: maskLicenseCodes(req.url),
    ip: req.ip,
    ...(withHeaders ? { headers: req.headers } : {}),
  });
}

function maskLicenseCodes(url: string): string {
  const [path = '', query] = url.split('?', 2);
  const masked = path
    .split('/')
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // A badly encoded segment is logged as sent.
      }
      return canonicalLicenseCode(decoded) === null ? segment : '[license-code]';
    })
    .join('/');
  return query === undefined ? masked : `${masked}?${query}`;
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
    connectionTimeout: 60_000,
    requestTimeout: 60_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: true,
    // Usernames and license codes travel in paths; longer parameters answer 414 in our body.
    routerOptions: { maxParamLength: 512 },
    frameworkErrors: frameworkErrorHandler,
    ajv: {
      // Bodies are taken exactly as sent: no coercion (a number is not a password), nothing stripped.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.headersTimeout = 20_000;

  registerErrorHandling(app);

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await options.deps.store.ping();
      return { status: 'ready' };
    } catch {
      return sendError(reply, 'SERVICE_UNAVAILABLE', 'a backing service is unreachable');
    }
  });

  await app.register(integrationRoutes, { prefix: '/api/integration', deps: options.deps });
  await app.register(adminRoutes, { prefix: '/api/admin', deps: options.deps });
  await app.register(consoleRoutes, { prefix: '/api/console', deps: options.deps });
  return app;
}
