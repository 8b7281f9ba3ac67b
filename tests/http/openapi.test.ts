// The OpenAPI 3.1 document (docs/api.md, API reference): generated from the routes, valid, complete
// (every registered route is an operation of it), with the three APIs' security and every
// operation's error codes; and its reference page, under the dashboard's headers.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_HEADERS } from '../../src/adapters/http/dashboard.js';
import { registeredRoutesOf } from '../../src/adapters/http/openapi.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

interface Operation {
  security: Array<Record<string, string[]>>;
  parameters: Array<{ name: string; in: string }>;
  responses: Record<string, { description: string; content?: Record<string, { examples?: Record<string, { value: { error_code: string } }> }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
}

let t: TestApp;
let doc: Document;
beforeAll(async () => {
  // With metrics served, so that route is held to the document too.
  t = await startTestApp({ metrics: true });
  const res = await t.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.json<Document>();
});
afterAll(() => t.close());

const operation = (method: string, path: string): Operation => {
  const op = doc.paths[path]?.[method];
  if (op === undefined) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  return op;
};
/** The error codes an operation documents, over all its statuses. */
const codesOf = (op: Operation) => Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {}).flatMap((m) => Object.values(m.examples ?? {}).map((e) => e.value.error_code)));

type Spec = Parameters<Validator['validate']>[0];

it('validates as OpenAPI 3.1', async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as unknown as Spec);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

it('the validator does refuse a broken document (an operation without responses)', async () => {
  const broken = structuredClone(doc);
  delete (broken.paths['/healthz']?.['get'] as Partial<Operation>).responses;
  (broken.paths['/healthz']!['get'] as unknown as Record<string, unknown>)['responses'] = 'none';
  expect((await new Validator().validate(broken as unknown as Spec)).valid).toBe(false);
});

it('names every operation uniquely', () => {
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => (op as unknown as { operationId: string }).operationId));
  expect(new Set(ids).size).toBe(ids.length);
});

it('has every registered route as an operation, and leaves out only the dashboard and this reference page', () => {
  const routes = registeredRoutesOf(t.http);
  expect(routes.length).toBeGreaterThan(60);
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
  const missing = routes.filter((r) => !r.undocumented && !documented.has(`${r.method} ${r.path}`));
  expect(missing).toEqual([]);
  // Nothing else may be hidden: a route marked undocumented by mistake fails here.
  expect(
    routes
      .filter((r) => r.undocumented)
      .map((r) => `${r.method} ${r.path}`)
      .sort(),
  ).toEqual(['GET /', 'GET /api/docs', 'GET /api/docs/reference.css', 'GET /api/docs/reference.js', 'GET /dashboard', 'GET /dashboard/*'].sort());
  // And nothing is documented that is not served.
  expect(documented.size).toBe(routes.filter((r) => !r.undocumented).length);
});

describe('security', () => {
  it("declares the three APIs' schemes", () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminApiKey', 'applicationKey', 'applicationSecret', 'consoleSession', 'consoleToken']);
  });

  it("puts each operation under its API's scheme; the console sign-ins and the health checks need none", () => {
    expect(operation('post', '/api/integration/auth/login').security).toEqual([{ applicationKey: [], applicationSecret: [] }]);
    expect(operation('get', '/api/admin/license/{code}').security).toEqual([{ adminApiKey: [] }]);
    expect(operation('get', '/api/console/applications').security).toEqual([{ consoleToken: [] }, { consoleSession: [] }]);
    expect(operation('post', '/api/console/login').security).toEqual([]);
    expect(operation('post', '/api/console/session').security).toEqual([]);
    expect(operation('get', '/healthz').security).toEqual([]);
  });
});

describe('error codes per operation (docs/api.md, API reference)', () => {
  it.each([
    ['post', '/api/integration/sign_up', ['INVALID_API_CREDENTIALS', 'DEVICE_REQUIRED', 'BANNED', 'RATE_LIMITED', 'USERNAME_TAKEN', 'DEVICE_LIMIT_REACHED', 'VALIDATION_FAILED', 'SIGNATURE_INVALID']],
    ['post', '/api/integration/reset_devices', ['RESET_DISABLED', 'RESET_COOLDOWN', 'INVALID_CREDENTIALS', 'ACCOUNT_LOCKED']],
    ['post', '/api/integration/start_trial', ['TRIAL_NOT_OFFERED', 'TRIAL_USED', 'TRIAL_NOT_ELIGIBLE', 'INVALID_CREDENTIALS', 'DEVICE_LIMIT_REACHED', 'SIGNATURE_INVALID']],
    ['patch', '/api/console/applications/{app_id}', ['APPLICATION_NOT_FOUND', 'PLAN_NOT_FOUND', 'PLAN_ARCHIVED', 'VALIDATION_FAILED']],
    ['get', '/api/integration/files/{file_id}/download', ['LOGIN_REQUIRED', 'FILE_NOT_FOUND', 'RANGE_NOT_SATISFIABLE']],
    ['get', '/api/admin/user/{usernameOrCode}', ['INVALID_ADMIN_API_KEY', 'USER_NOT_FOUND', 'LICENSE_HELD_BY_SEVERAL', 'VALIDATION_FAILED']],
    ['post', '/api/admin/license_files', ['USER_NOT_FOUND', 'LICENSE_HELD_BY_SEVERAL']],
    ['post', '/api/integration/sign_up_with_license_code', ['VALIDATION_FAILED', 'LICENSE_USED', 'LICENSE_ALREADY_REDEEMED']],
    ['delete', '/api/console/applications/{app_id}/licenses/{code}', ['INVALID_CONSOLE_TOKEN', 'CSRF_REJECTED', 'APPLICATION_NOT_FOUND', 'LICENSE_NOT_FOUND', 'LICENSE_CONSUMED']],
    ['post', '/api/console/applications/{app_id}/files', ['APPLICATION_NOT_FOUND', 'FILE_NAME_TAKEN', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']],
    ['patch', '/api/console/applications/{app_id}/plans/{plan_id}', ['APPLICATION_NOT_FOUND', 'PLAN_NOT_FOUND', 'PLAN_NAME_TAKEN', 'VALIDATION_FAILED']],
    ['delete', '/api/console/applications/{app_id}/plans/{plan_id}', ['APPLICATION_NOT_FOUND', 'PLAN_NOT_FOUND', 'PLAN_IN_USE']],
    ['post', '/api/console/applications/{app_id}/licenses', ['APPLICATION_NOT_FOUND', 'PLAN_NOT_FOUND', 'PLAN_ARCHIVED', 'VALIDATION_FAILED']],
    ['get', '/api/console/applications/{app_id}/licenses/{license_id}/redemptions', ['APPLICATION_NOT_FOUND', 'LICENSE_NOT_FOUND']],
    ['delete', '/api/console/applications/{app_id}/licenses/{license_id}/redemptions/{user_id}', ['APPLICATION_NOT_FOUND', 'REDEMPTION_NOT_FOUND']],
    ['post', '/api/integration/activate_license', ['LICENSE_USED', 'LICENSE_ALREADY_REDEEMED']],
    ['get', '/readyz', ['SERVICE_UNAVAILABLE']],
  ])('%s %s lists its codes, each with an example', (method, path, codes) => {
    expect(codesOf(operation(method, path))).toEqual(expect.arrayContaining(codes));
  });

  it('documents each code under the status it is answered with (a refused license code at login is a 401)', () => {
    const login = operation('post', '/api/integration/auth/login').responses;
    expect(login['401']?.description).toContain('LICENSE_INVALID');
    expect(login['429']?.description).toContain('ACCOUNT_LOCKED');
    const trial = operation('post', '/api/integration/start_trial').responses;
    expect(trial['404']?.description).toContain('TRIAL_NOT_OFFERED');
    expect(trial['409']?.description).toContain('TRIAL_USED');
    expect(trial['409']?.description).toContain('TRIAL_NOT_ELIGIBLE');
    const redeem = operation('post', '/api/integration/sign_up_with_license_code').responses;
    expect(redeem['422']?.description).toContain('LICENSE_INVALID');
    expect(redeem['401']?.description ?? '').not.toContain('LICENSE_INVALID');
  });

  it('declares success answers with their schemas: a 204 has no body, a download is bytes', () => {
    expect(operation('post', '/api/integration/auth/logout').responses['204']?.content).toBeUndefined();
    expect(Object.keys(operation('get', '/api/admin/files/{file_id}/download').responses['200']?.content ?? {})).toEqual(['application/octet-stream']);
    expect(Object.keys(operation('get', '/api/console/applications').responses['200']?.content ?? {})).toEqual(['application/json']);
    expect(operation('get', '/api/console/applications/{app_id}/users').parameters.map((p) => `${p.in} ${p.name}`)).toEqual(['path app_id', 'query query', 'query limit', 'query offset']);
  });
});

describe('the reference page', () => {
  it.each(['/api/docs', '/api/docs/reference.js', '/api/docs/reference.css'])("%s is served under the dashboard's headers", async (url) => {
    const res = await t.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) expect(res.headers[name]).toBe(value);
  });

  it('runs no inline script and loads the document it renders', async () => {
    const page = (await t.inject({ method: 'GET', url: '/api/docs' })).body;
    expect(page).toMatch(/<script type="module" src="\/api\/docs\/reference.js"><\/script>/);
    expect(page.match(/<script[^>]*>[^<]+<\/script>/g)).toBeNull();
    expect((await t.inject({ method: 'GET', url: '/api/docs/reference.js' })).body).toContain("fetch('/api/openapi.json')");
  });
});

describe('examples', () => {
  it('every example a wire shape gives is valid against that shape', async () => {
    const { Ajv } = await import('ajv');
    const addFormats = (await import('ajv-formats')).default;
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    const shapes = Object.entries(await import('../../src/adapters/http/wire-schemas.js')).filter(([, schema]) => Array.isArray((schema as { examples?: unknown }).examples));
    expect(shapes.length).toBeGreaterThan(8);
    for (const [name, schema] of shapes) {
      const plain = JSON.parse(JSON.stringify(schema)) as { examples: unknown[] };
      const validate = ajv.compile(plain);
      for (const example of plain.examples) expect(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });
});
