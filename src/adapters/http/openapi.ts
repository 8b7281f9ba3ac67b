// The OpenAPI 3.1 document (docs/api.md), generated from the routes as Fastify registers them:
// their schemas (wire-schemas.ts, answers.ts) and the error codes each declares beside it. TypeBox
// schemas are JSON Schema 2020-12, OpenAPI 3.1's schema dialect, so they go in as they are.
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ErrorCode } from '../../domain/errors.js';
import { errorBody, statusOf } from './errors.js';
import { ErrorBody } from './wire-schemas.js';

type Json = Record<string, unknown>;

/** Where the document is served. */
export const OPENAPI_PATH = '/api/openapi.json';

/** Every endpoint can answer these for malformed input, 500, and 503 while the database cannot be reached (docs/api.md, Errors). */
const MALFORMED_INPUT: readonly ErrorCode[] = ['MALFORMED_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_FAILED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

interface Api {
  prefix: string;
  tag: string;
  /** Refusals of the API's own authentication, on every operation that needs it. */
  errors: readonly ErrorCode[];
  security: Json[];
}

const APIS: readonly Api[] = [
  {
    prefix: '/api/integration/',
    tag: 'Integration API',
    // Request signing (README) and the credential throttle apply to every operation.
    errors: ['INVALID_API_CREDENTIALS', 'SIGNATURE_REQUIRED', 'SIGNATURE_EXPIRED', 'SIGNATURE_INVALID', 'REQUEST_REPLAYED', 'RATE_LIMITED', 'PASSWORD_QUEUE_FULL'],
    security: [{ applicationKey: [], applicationSecret: [] }],
  },
  { prefix: '/api/admin/', tag: 'Admin API', errors: ['INVALID_ADMIN_API_KEY'], security: [{ adminApiKey: [] }] },
  { prefix: '/api/console/', tag: 'Console API', errors: ['INVALID_CONSOLE_TOKEN', 'CSRF_REJECTED'], security: [{ consoleToken: [] }, { consoleSession: [] }] },
];

/** The console's sign-in routes need no token: they are how one is had. */
const OPEN_CONSOLE_ROUTES = new Set(['POST /api/console/login', 'POST /api/console/session']);

const SECURITY_SCHEMES = {
  applicationKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "The application's API key; sent with x-api-secret (integration API)." },
  applicationSecret: { type: 'apiKey', in: 'header', name: 'x-api-secret', description: "The application's API secret; sent with x-api-key (integration API)." },
  adminApiKey: { type: 'http', scheme: 'bearer', description: "The application's admin API key (admin API)." },
  consoleToken: { type: 'http', scheme: 'bearer', description: 'An owner console token, gh_con_... (console API).' },
  consoleSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'gh_console',
    description: "The dashboard's session cookie (console API); changes also need X-CSRF-Token.",
  },
};

/** Where a credential is refused it is a 401, whatever its code's form-error status (errors.ts). */
function documentedStatus(code: ErrorCode, url: string): number {
  const credential = (code === 'LICENSE_INVALID' || code === 'LICENSE_USED') && url.startsWith('/api/integration/') && url !== '/api/integration/sign_up_with_license_code';
  return statusOf(code, credential ? { refusedCredential: true } : {});
}

const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parameters(route: RouteOptions): Json[] {
  const schema = route.schema ?? {};
  const of = (where: 'path' | 'query', object: unknown): Json[] => {
    if (object === undefined) return [];
    const { properties = {}, required = [] } = plain(object) as { properties?: Record<string, Json>; required?: string[] };
    return Object.entries(properties).map(([name, property]) => ({ name, in: where, required: where === 'path' || required.includes(name), schema: property }));
  };
  return [...of('path', schema.params), ...of('query', schema.querystring)];
}

/** The multipart form of the file uploads (docs/api.md, Files). */
const UPLOAD_FORM = {
  type: 'object',
  properties: {
    file: { type: 'string', contentMediaType: 'application/octet-stream' },
    name: { type: 'string' },
    is_public: { type: 'string', enum: ['true', 'false'] },
    store_encrypted: { type: 'string', enum: ['true', 'false'] },
  },
  required: ['is_public', 'store_encrypted'],
};

function requestBody(route: RouteOptions): Json | undefined {
  if (route.config?.upload) return { required: true, content: { 'multipart/form-data': { schema: UPLOAD_FORM } } };
  if (route.schema?.body === undefined) return undefined;
  return { required: true, content: { 'application/json': { schema: plain(route.schema.body) } } };
}

const textOr = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);

function successResponse(schema: unknown): Json {
  const json = plain(schema);
  if (json['type'] === 'null') return { description: textOr(json['description'], 'no body') };
  const mediaType = typeof json['contentMediaType'] === 'string' ? json['contentMediaType'] : 'application/json';
  return { description: textOr(json['title'] ?? json['description'], 'success'), content: { [mediaType]: { schema: json } } };
}

/** One response per error status, naming its codes, with an example body of each. */
function errorResponses(codes: readonly ErrorCode[], url: string): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = documentedStatus(code, url);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: list.join(', '),
      content: {
        'application/json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Error' }], properties: { error_code: { enum: list } } },
          examples: Object.fromEntries(list.map((code) => [code, { value: errorBody(code, code.toLowerCase().replaceAll('_', ' ')) }])),
        },
      },
    };
  }
  return responses;
}

/** The error codes an operation can answer: its API's, every endpoint's, and the route's own. */
export function errorCodesOf(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): ErrorCode[] {
  const method = String(route.method);
  const api = APIS.find((a) => route.url.startsWith(a.prefix));
  const open = OPEN_CONSOLE_ROUTES.has(`${method} ${route.url}`);
  const own = route.config?.errors ?? [];
  const apiCodes = api === undefined || open ? [] : api.errors;
  const consoleApp = api?.tag === 'Console API' && route.url.includes(':app_id') ? (['APPLICATION_NOT_FOUND'] as const) : [];
  const openThrottle = open ? (['RATE_LIMITED'] as const) : [];
  return [...new Set<ErrorCode>([...apiCodes, ...consoleApp, ...openThrottle, ...own, ...MALFORMED_INPUT])];
}

function operation(route: RouteOptions): Json {
  const method = String(route.method);
  const api = APIS.find((a) => route.url.startsWith(a.prefix));
  const open = OPEN_CONSOLE_ROUTES.has(`${method} ${route.url}`);
  const response = (route.schema?.response ?? {}) as Record<string, unknown>;
  const successes = Object.fromEntries(
    Object.entries(response)
      .filter(([status]) => /^\d+$/.test(status))
      .map(([status, schema]) => [status, successResponse(schema)]),
  );
  const body = requestBody(route);
  return {
    operationId: `${method.toLowerCase()}${route.url.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    tags: [api?.tag ?? 'Service'],
    security: api === undefined || open ? [] : api.security,
    parameters: parameters(route),
    ...(body === undefined ? {} : { requestBody: body }),
    responses: { ...successes, ...errorResponses(errorCodesOf(route), route.url) },
  };
}

export interface RegisteredRoute {
  method: string;
  /** As the document writes it: `/files/{file_id}`. */
  path: string;
  undocumented: boolean;
}

const registeredRoutes = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered on `app` (HEAD twins aside), documented or not: what the document is checked against. */
export const registeredRoutesOf = (app: FastifyInstance): readonly RegisteredRoute[] => registeredRoutes.get(app) ?? [];

/** Records the routes as they are registered (call before registering any) and builds the document from them. */
export function collectOpenApi(app: FastifyInstance, info: { version: string }) {
  const routes: RouteOptions[] = [];
  const registered: RegisteredRoute[] = [];
  registeredRoutes.set(app, registered);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // HEAD twins of GET routes are Fastify's own.
      if (method === 'HEAD') continue;
      const undocumented = route.config?.undocumented === true;
      registered.push({ method: String(method), path: openApiPath(route.url), undocumented });
      if (!undocumented) routes.push({ ...route, method });
    }
  });
  let built: string | undefined;
  return {
    /** The document, as JSON text (built once, after every route is registered). */
    document(): string {
      if (built !== undefined) return built;
      const paths: Record<string, Record<string, Json>> = {};
      for (const route of routes) {
        const path = openApiPath(route.url);
        paths[path] = { ...paths[path], [String(route.method).toLowerCase()]: operation(route) };
      }
      built = JSON.stringify({
        openapi: '3.1.0',
        info: {
          title: 'Gatehouse',
          version: info.version,
          description: 'Application access, licenses and file distribution. Errors are one JSON body (Error); each operation lists the codes it can answer.',
        },
        servers: [{ url: '/' }],
        tags: [...APIS.map((a) => ({ name: a.tag })), { name: 'Service' }],
        paths,
        components: { schemas: { Error: plain(ErrorBody) }, securitySchemes: SECURITY_SCHEMES },
      });
      return built;
    },
  };
}
