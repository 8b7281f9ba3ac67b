import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { member, token, type TestApplication } from '../support/integration.js';
import { issueConsoleToken } from '../../src/application/console/owners.js';
import { freshNonce, signRequest } from '../support/request-signer.js';

// Any malformed body, header or path parameter answers 4xx with the error body, never 5xx.
let t: TestApp;
let app: TestApplication & { credentials: { admin_api_key: string } };
let session: string;
let userId: string;
let code: string;
let signing: TestApplication & { credentials: { request_signing_key: string } };
let hookId: string;
let deliveryId: string;
let planId: string;
let planLicenseId: string;

beforeAll(async () => {
  t = await startTestApp({ limits: { ipFailureLimit: 1_000_000, lockoutThreshold: 1_000_000 } });
  app = await createApplication(t, { device_auth: false, legacy_auth: true });
  const u = await member(t, app, 'alice');
  userId = u.id;
  session = await token(t, app, { username: 'alice', password: u.password });
  [code] = (await createLicenses(t, app.id, 1, 60)) as [string];
  signing = await createApplication(t, { device_auth: false, legacy_auth: true, anonymous_access: true, request_signing: true });
  const hook = await t.inject({
    method: 'POST',
    url: `/api/console/applications/${app.id}/webhooks`,
    headers: { authorization: `Bearer ${t.ownerToken}` },
    payload: { url: 'https://93.184.216.34/hook', events: ['*'] },
  });
  hookId = hook.json().endpoint.id;
  await t.inject({ method: 'POST', url: `/api/console/applications/${app.id}/webhooks/${hookId}/test`, headers: { authorization: `Bearer ${t.ownerToken}` } });
  // The delivery workers make deliveries from recorded events; here without attempting any.
  await t.store.fanOutWebhookEvents(t.clock.now(), 100);
  planId = (
    await t.inject({
      method: 'POST',
      url: `/api/console/applications/${app.id}/plans`,
      headers: { authorization: `Bearer ${t.ownerToken}` },
      payload: { name: 'Pro', kind: 'base', duration_minutes: 60 },
    })
  ).json().id;
  planLicenseId = (
    await t.inject({
      method: 'POST',
      url: `/api/console/applications/${app.id}/licenses`,
      headers: { authorization: `Bearer ${t.ownerToken}` },
      payload: { count: 1, plan_id: planId },
    })
  ).json().licenses[0].id;
  deliveryId = (await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/webhooks/${hookId}/deliveries`, headers: { authorization: `Bearer ${t.ownerToken}` } })).json()[0].id;
});
afterAll(() => t.close());

function expectClientError(res: LightMyRequestResponse, label: string) {
  expect(res.statusCode, `${label} -> ${res.statusCode} ${res.body}`).toBeLessThan(500);
  if (res.statusCode >= 400) {
    const body = res.json<Record<string, unknown>>();
    expect(typeof body['error_code'], label).toBe('string');
    expect(typeof body['message'], label).toBe('string');
    expect(body['detail'], label).toBe(body['message']);
    expect(res.body).not.toMatch(/sqlite|SQLITE|postgres|drizzle|at .*\.ts:\d+|stack/i);
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const ID = '{id}';
const routes: Array<[Method, string, 'integration' | 'admin' | 'console']> = [
  ['POST', '/api/integration/sign_up', 'integration'],
  ['POST', '/api/integration/sign_up_with_license_code', 'integration'],
  ['POST', '/api/integration/auth/login', 'integration'],
  ['POST', '/api/integration/auth/logout', 'integration'],
  ['GET', '/api/integration/app_context', 'integration'],
  ['POST', '/api/integration/activate_license', 'integration'],
  ['POST', '/api/integration/license_file', 'integration'],
  ['GET', `/api/admin/user/${ID}`, 'admin'],
  ['POST', '/api/admin/license_files', 'admin'],
  ['GET', '/api/integration/user_variables', 'integration'],
  ['GET', `/api/integration/user_variables/${ID}`, 'integration'],
  ['PUT', `/api/integration/user_variables/${ID}`, 'integration'],
  ['DELETE', `/api/integration/user_variables/${ID}`, 'integration'],
  ['POST', '/api/integration/change_password', 'integration'],
  ['POST', '/api/integration/reset_devices', 'integration'],
  ['POST', '/api/integration/start_trial', 'integration'],
  ['GET', `/api/admin/license/${ID}`, 'admin'],
  ['POST', '/api/console/login', 'console'],
  ['GET', '/api/console/setup', 'console'],
  ['POST', '/api/console/applications', 'console'],
  ['GET', `/api/console/applications/${ID}`, 'console'],
  ['PATCH', '/api/console/applications/{app}', 'console'],
  ['POST', `/api/console/applications/{app}/credentials/${ID}/rotate`, 'console'],
  ['POST', '/api/console/applications/{app}/credentials/response_signing_key/rotate', 'console'],
  ['DELETE', '/api/console/applications/{app}/credentials/response_signing_key/previous', 'console'],
  ['POST', `/api/console/applications/${ID}/credentials/response_signing_key/rotate`, 'console'],
  ['DELETE', `/api/console/applications/${ID}/credentials/response_signing_key/previous`, 'console'],
  ['POST', '/api/console/applications/{app}/licenses', 'console'],
  ['GET', '/api/console/applications/{app}/licenses', 'console'],
  ['GET', `/api/console/applications/{app}/licenses/${ID}`, 'console'],
  ['DELETE', `/api/console/applications/{app}/licenses/${ID}`, 'console'],
  ['GET', `/api/console/applications/{app}/licenses/${ID}/redemptions`, 'console'],
  ['DELETE', `/api/console/applications/{app}/licenses/${ID}/redemptions/{user}`, 'console'],
  ['DELETE', `/api/console/applications/{app}/licenses/{license}/redemptions/${ID}`, 'console'],
  ['PUT', `/api/console/applications/{app}/variables/${ID}`, 'console'],
  ['DELETE', `/api/console/applications/{app}/variables/${ID}`, 'console'],
  ['POST', '/api/console/applications/{app}/announcements', 'console'],
  ['PATCH', `/api/console/applications/{app}/announcements/${ID}`, 'console'],
  ['GET', '/api/console/applications/{app}/users', 'console'],
  ['GET', `/api/console/applications/{app}/users/${ID}`, 'console'],
  ['PATCH', `/api/console/applications/{app}/users/${ID}`, 'console'],
  ['PUT', `/api/console/applications/{app}/users/${ID}/timeout`, 'console'],
  ['DELETE', `/api/console/applications/{app}/users/${ID}/lock`, 'console'],
  ['DELETE', `/api/console/applications/{app}/users/{user}/devices/${ID}`, 'console'],
  ['POST', `/api/console/applications/{app}/users/${ID}/license_files`, 'console'],
  ['POST', '/api/console/applications/{app}/users/{user}/license_files', 'console'],
  ['GET', `/api/console/applications/{app}/users/${ID}/variables`, 'console'],
  ['GET', `/api/console/applications/{app}/users/{user}/variables/${ID}`, 'console'],
  ['PUT', `/api/console/applications/{app}/users/{user}/variables/${ID}`, 'console'],
  ['DELETE', `/api/console/applications/{app}/users/{user}/variables/${ID}`, 'console'],
  ['PUT', `/api/console/applications/{app}/users/${ID}/password`, 'console'],
  ['PUT', `/api/console/applications/{app}/users/${ID}/entitlements`, 'console'],
  ['PUT', '/api/console/applications/{app}/users/{user}/entitlements', 'console'],
  ['POST', '/api/console/applications/{app}/adjustments', 'console'],
  ['POST', '/api/console/applications/{app}/bans', 'console'],
  ['DELETE', `/api/console/applications/{app}/bans/${ID}`, 'console'],
  ['GET', '/api/console/applications/{app}/audit', 'console'],
  ['GET', '/api/console/applications/{app}/audit.ndjson', 'console'],
  ['GET', '/api/console/applications/{app}/audit/head', 'console'],
  ['GET', '/api/console/tokens', 'console'],
  ['DELETE', `/api/console/tokens/${ID}`, 'console'],
  ['POST', '/api/console/tokens/revoke_all', 'console'],
  ['POST', '/api/console/password', 'console'],
  ['POST', '/api/console/applications/{app}/webhooks', 'console'],
  ['GET', '/api/console/applications/{app}/webhooks', 'console'],
  ['PATCH', `/api/console/applications/{app}/webhooks/${ID}`, 'console'],
  ['PATCH', '/api/console/applications/{app}/webhooks/{hook}', 'console'],
  ['DELETE', `/api/console/applications/{app}/webhooks/${ID}`, 'console'],
  ['POST', `/api/console/applications/{app}/webhooks/${ID}/rotate_secret`, 'console'],
  ['POST', '/api/console/applications/{app}/webhooks/{hook}/rotate_secret', 'console'],
  ['POST', `/api/console/applications/{app}/webhooks/${ID}/test`, 'console'],
  ['POST', '/api/console/applications/{app}/webhooks/{hook}/test', 'console'],
  ['GET', `/api/console/applications/{app}/webhooks/${ID}/deliveries`, 'console'],
  ['POST', `/api/console/applications/{app}/webhooks/{hook}/deliveries/${ID}/redeliver`, 'console'],
  ['POST', `/api/console/applications/{app}/webhooks/${ID}/deliveries/{delivery}/redeliver`, 'console'],
  ['POST', '/api/console/applications/{app}/plans', 'console'],
  ['GET', '/api/console/applications/{app}/plans', 'console'],
  ['GET', `/api/console/applications/{app}/plans/${ID}`, 'console'],
  ['PATCH', `/api/console/applications/{app}/plans/${ID}`, 'console'],
  ['PATCH', '/api/console/applications/{app}/plans/{plan}', 'console'],
  ['DELETE', `/api/console/applications/{app}/plans/${ID}`, 'console'],
];

/** Text with lone UTF-16 surrogates (JSON's "\ud800" escapes) among ordinary characters and whole pairs. */
const withLoneSurrogates = fc
  .array(fc.oneof(fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'), fc.constantFrom('a', '-', '0', '\ud83d\ude00')), { minLength: 1, maxLength: 20 })
  .map((parts) => parts.join(''))
  .filter((s) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s));

const pathParam = fc.oneof(
  fc.string({ maxLength: 40 }),
  withLoneSurrogates,
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('..', '../../etc/passwd', '%00', '\u0000', 'a\r\nb', 'x'.repeat(5000), '00000000-0000-0000-0000-000000000000', '\u202Eevil'),
  fc.uuid(),
);

const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom(
      'username',
      'password',
      'code',
      'hardware_id',
      'credentials',
      'name',
      'count',
      'minutes',
      'user_ids',
      'until',
      'type',
      'value',
      'status',
      'publish_from',
      'email',
      'is_public',
      'title',
      'current_password',
      'new_password',
      'response_signing',
      'request_signing',
      'signature_window_seconds',
      'license_file_ttl_minutes',
      'ttl_minutes',
      'username_or_license_code',
      'max_user_variables',
      'device_reset_cooldown_hours',
      'expiry_notice_days',
      'trial_plan_id',
      'url',
      'events',
      'enabled',
      'description',
      'kind',
      'duration_minutes',
      'entitlements',
      'max_devices',
      'max_sessions',
      'seats',
      'grace_minutes',
      'trial',
      'floating',
      'max_borrow_minutes',
      'archived',
      'plan_id',
    ),
    fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 3000 }), withLoneSurrogates, fc.integer(), fc.double(), fc.constant(null)),
  ),
);

/** Raw payloads: bad JSON, wrong media types, huge or empty bodies. */
const rawPayload = fc.oneof(
  fc.string({ maxLength: 200 }).map((s) => ({ payload: s, type: 'application/json' })),
  fc.constantFrom('{', '[]', 'null', '""', '{"a":', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}').map((s) => ({ payload: s, type: 'application/json' })),
  fc.string({ maxLength: 200 }).map((s) => ({ payload: s, type: 'text/plain' })),
  fc.constant({ payload: 'a=1&b=2', type: 'application/x-www-form-urlencoded' }),
  fc.constant({ payload: '', type: 'application/json' }),
);

const asciiHeader = fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));

function headersFor(kind: string, chosen: 'valid' | 'random', random: Record<string, string>) {
  if (chosen === 'random') return random;
  if (kind === 'integration') return { ...app.headers, authorization: `Bearer ${session}` };
  if (kind === 'admin') return { authorization: `Bearer ${app.credentials.admin_api_key}` };
  return { authorization: `Bearer ${t.ownerToken}` };
}

/**
 * Percent-encoded for a path; a lone surrogate has no UTF-8 form, so it goes as the bytes a
 * careless client would send for it (its three-byte WTF-8 form, e.g. %ED%A0%80).
 */
function encodePathParam(param: string): string {
  let out = '';
  for (const ch of param) {
    const cp = ch.codePointAt(0) ?? 0;
    out += cp >= 0xd800 && cp <= 0xdfff ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)].map((b) => `%${b.toString(16).toUpperCase()}`).join('') : encodeURIComponent(ch);
  }
  return out;
}

const fill = (template: string, param: string) =>
  template
    .replace('{app}', app.id)
    .replace('{user}', userId)
    .replace('{hook}', hookId)
    .replace('{delivery}', deliveryId)
    .replace('{plan}', planId)
    .replace('{license}', planLicenseId)
    .replace(ID, encodePathParam(param));

describe('malformed input never yields 5xx', () => {
  it('JSON bodies of any shape on every route', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), pathParam, body, fc.constantFrom<'valid' | 'random'>('valid', 'random'), async ([method, template, kind], param, payload, auth) => {
        const url = fill(template, param);
        const res = await t.inject({
          method,
          url,
          headers: headersFor(kind, auth, { 'x-api-key': 'k', authorization: 'Bearer x' }),
          ...(method === 'GET' || method === 'DELETE' ? {} : { payload: payload as object }),
        });
        expectClientError(res, `${method} ${url}`);
      }),
      { numRuns: 400 },
    );
  });

  it('raw payloads, odd media types and broken JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes.filter(([m]) => m !== 'GET')), rawPayload, async ([method, template, kind], raw) => {
        const url = fill(template, 'x');
        const res = await t.inject({ method, url, headers: { ...headersFor(kind, 'valid', {}), 'content-type': raw.type }, payload: raw.payload });
        expectClientError(res, `${method} ${url} ${raw.type}`);
      }),
      { numRuns: 300 },
    );
  });

  it('random credential headers on the integration and admin routes', async () => {
    const headerNames = ['x-api-key', 'x-api-secret', 'authorization', 'x-api-license-code', 'x-api-username', 'x-api-password', 'x-hardware-id', 'x-nonce', 'x-signature'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes.filter(([, , k]) => k !== 'console')),
        fc.dictionary(fc.constantFrom(...headerNames), asciiHeader),
        fc.boolean(),
        async ([method, template], random, keepAppCredentials) => {
          const url = fill(template, 'alice');
          const headers = keepAppCredentials ? { ...app.headers, ...random } : random;
          const res = await t.inject({ method, url, headers, ...(method === 'POST' ? { payload: {} } : {}) });
          expectClientError(res, `${method} ${url} ${JSON.stringify(Object.keys(random))}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('malformed URLs and query strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/console/applications/%', '/api/admin/user/%zz', '/api/console/applications/{app}/users?limit=%', '/api/console/applications/{app}/licenses?status=%E0%A4%A'),
        fc.string({ maxLength: 20 }),
        async (template, suffix) => {
          const url = template.replace('{app}', app.id) + encodeURIComponent(suffix);
          const res = await t.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.ownerToken}` } });
          expectClientError(res, url);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a hardware id with a lone surrogate answers 422 on every route that takes one', async () => {
    const withHardwareId: Array<[string, Record<string, unknown>]> = [
      ['/api/integration/sign_up', { username: 'someone', password: 'password123' }],
      ['/api/integration/sign_up_with_license_code', { code }],
      ['/api/integration/auth/login', { credentials: { username: 'alice', password: 'whatever password' } }],
      ['/api/integration/activate_license', { code, username: 'alice', password: 'whatever password' }],
      ['/api/integration/license_file', {}],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...withHardwareId), withLoneSurrogates, async ([url, fields], hardwareId) => {
        const res = await t.inject({ method: 'POST', url, headers: app.headers, payload: { ...fields, hardware_id: hardwareId } });
        expectClientError(res, `${url} ${JSON.stringify(hardwareId)}`);
        expect(res.statusCode).toBe(422);
        expect(res.json().errors[0].field).toBe('hardware_id');
      }),
      { numRuns: 100 },
    );
  });

  it('any cascade query of a ban deletion', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('true', 'false', 'TRUE', '1', '')), fc.boolean(), async (value, raw) => {
        const url = `/api/console/applications/${app.id}/bans/00000000-0000-4000-8000-000000000000?cascade=${raw ? value : encodeURIComponent(value)}`;
        const res = await t.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${t.ownerToken}` } });
        expectClientError(res, url);
      }),
      { numRuns: 100 },
    );
  });

  it('any filter, cursor and limit of the audit log and its export', async () => {
    const fields = ['action', 'actor_type', 'target_type', 'target_id', 'since', 'until', 'cursor', 'limit'];
    const value = fc.oneof(
      fc.string({ maxLength: 30 }),
      withLoneSurrogates,
      fc.constantFrom('owner', 'system', '2026-06-08T12:00:00Z', 'yesterday', '0', '-1', '99999', 'cG9zOjE', 'cG9zOi0x', '%', '%E0%A4%A', 'user.created'),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('audit', 'audit.ndjson'), fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 4 }), fc.boolean(), async (path, query, raw) => {
        const qs = Object.entries(query)
          .map(([k, v]) => `${k}=${raw ? v : encodePathParam(v)}`)
          .join('&');
        const url = `/api/console/applications/${app.id}/${path}?${qs}`;
        const res = await t.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.ownerToken}` } });
        expectClientError(res, url);
      }),
      { numRuns: 150 },
    );
  });

  it('any include_current query of signing out everywhere', async () => {
    const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
    if (owner === null) throw new Error('no owner');
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('true', 'false', 'TRUE', '1', '')), fc.boolean(), async (value, raw) => {
        // A token of its own each run: include_current=true signs it out.
        const own = (await issueConsoleToken(t.deps, owner)).token;
        const url = `/api/console/tokens/revoke_all?include_current=${raw ? value : encodeURIComponent(value)}`;
        const res = await t.inject({ method: 'POST', url, headers: { authorization: `Bearer ${own}` } });
        expectClientError(res, url);
      }),
      { numRuns: 100 },
    );
  });

  it('any URL and event list of a new webhook endpoint answers 201 or 422', async () => {
    // IP literals and names under .invalid only: nothing here waits on a real lookup.
    const url = fc.oneof(
      fc.string({ maxLength: 100 }),
      withLoneSurrogates,
      fc.ipV4().map((ip) => `https://${ip}/hook`),
      fc.ipV6().map((ip) => `https://[${ip}]:8443/`),
      fc.domain().map((d) => `https://${d}.invalid/`),
      fc.constantFrom('https://', 'https://[::1', 'https://a b/', 'javascript:alert(1)', 'https://u:p@93.184.216.34/', 'https://0x7f000001/', `https://93.184.216.34/${'x'.repeat(3000)}`),
    );
    const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
    if (owner === null) throw new Error('no owner');
    // A token of its own: another case signs the harness's out.
    const own = (await issueConsoleToken(t.deps, owner)).token;
    const events = fc.oneof(fc.constant(['*']), fc.array(fc.oneof(fc.string({ maxLength: 70 }), fc.constantFrom('user.created', 'webhook.test', '*')), { maxLength: 70 }));
    await fc.assert(
      fc.asyncProperty(url, events, async (u, e) => {
        const res = await t.inject({ method: 'POST', url: `/api/console/applications/${app.id}/webhooks`, headers: { authorization: `Bearer ${own}` }, payload: { url: u, events: e } });
        expectClientError(res, `${u} ${JSON.stringify(e)}`);
        expect([201, 422], `${u} ${res.body}`).toContain(res.statusCode);
        // Under the application's cap of endpoints (a 21st answers 409, its own case in webhook-limits.test.ts).
        if (res.statusCode === 201) await t.inject({ method: 'DELETE', url: `/api/console/applications/${app.id}/webhooks/${res.json().endpoint.id}`, headers: { authorization: `Bearer ${own}` } });
      }),
      { numRuns: 200 },
    );
  });

  it('any terms of a new or changed plan answer 201, 200, 409 or 422, and a refused patch changes nothing', async () => {
    const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
    if (owner === null) throw new Error('no owner');
    // A token of its own: another case signs the harness's out.
    const headers = { authorization: `Bearer ${(await issueConsoleToken(t.deps, owner)).token}` };
    // Mostly in range, so that many requests pass and change the plan; sometimes anything.
    const mostly = <T>(valid: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: valid, weight: 9 }, { arbitrary: bad, weight: 1 });
    const anything = fc.oneof(fc.jsonValue({ maxDepth: 1 }), withLoneSurrogates, fc.integer(), fc.constantFrom(-1, 0, 0.5, 1e300, 2 ** 31, 52_560_001, 10_001, 1001));
    const inRange = (min: number, max: number) => mostly(fc.integer({ min, max }), anything);
    const code = mostly(fc.stringMatching(/^[a-z0-9_.:-]{1,64}$/), fc.oneof(fc.string({ maxLength: 70 }), withLoneSurrogates));
    const fields = {
      name: mostly(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,30}$/), fc.oneof(fc.string({ maxLength: 110 }), withLoneSurrogates, fc.constantFrom('Pro', ' Pro ', '', ' '))),
      // The plan patched is a base plan, whose kind cannot change.
      kind: mostly(fc.constantFrom('base', 'base', 'add_on'), anything),
      duration_minutes: mostly(fc.oneof(fc.integer({ min: 1, max: 52_560_000 }), fc.constant(null)), anything),
      entitlements: mostly(fc.array(code, { maxLength: 10 }), fc.oneof(fc.array(code, { minLength: 95, maxLength: 105 }), anything)),
      max_devices: mostly(fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constant(null)), anything),
      max_sessions: mostly(fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constant(null)), anything),
      seats: inRange(1, 10_000),
      grace_minutes: inRange(0, 525_600),
      trial: mostly(fc.boolean(), anything),
      floating: mostly(fc.boolean(), anything),
      max_borrow_minutes: inRange(0, 43_200),
    };
    const request = fc.oneof(
      fc.record(fields, { requiredKeys: ['name', 'kind', 'duration_minutes'] }).map((b) => ({ patch: false, given: b })),
      fc.record({ ...fields, archived: mostly(fc.boolean(), anything) }, { requiredKeys: [] }).map((b) => ({ patch: true, given: b })),
    );
    const base = `/api/console/applications/${app.id}/plans`;
    await fc.assert(
      fc.asyncProperty(request, async ({ patch, given }) => {
        const before = (await t.inject({ method: 'GET', url: `${base}/${planId}`, headers })).json();
        const res = await t.inject({ method: patch ? 'PATCH' : 'POST', url: patch ? `${base}/${planId}` : base, headers, payload: given });
        expectClientError(res, `${patch ? 'PATCH' : 'POST'} ${JSON.stringify(given)}`);
        expect(patch ? [200, 409, 422] : [201, 409, 422], res.body).toContain(res.statusCode);
        if (res.statusCode === 201) await t.inject({ method: 'DELETE', url: `${base}/${res.json().id}`, headers });
        if (patch && res.statusCode !== 200) expect((await t.inject({ method: 'GET', url: `${base}/${planId}`, headers })).json()).toEqual(before);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('any terms of new licenses answer 201, 404 or 422, and a refusal issues none', async () => {
    const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
    if (owner === null) throw new Error('no owner');
    // A token of its own: another case signs the harness's out.
    const headers = { authorization: `Bearer ${(await issueConsoleToken(t.deps, owner)).token}` };
    const base = `/api/console/applications/${app.id}/licenses`;
    const anything = fc.oneof(fc.jsonValue({ maxDepth: 1 }), withLoneSurrogates, fc.integer(), fc.constantFrom(-1, 0, 0.5, 1e300, 10_001, '1'));
    const mostly = <T>(valid: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: valid, weight: 9 }, { arbitrary: bad, weight: 1 });
    const terms = fc.record(
      {
        count: mostly(fc.integer({ min: 1, max: 3 }), anything),
        minutes: mostly(fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constant(null)), anything),
        plan_id: mostly(fc.constantFrom(planId, '00000000-0000-4000-8000-000000000000'), anything),
        note: mostly(fc.string({ maxLength: 20 }), anything),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(terms, async (given) => {
        const before = (await t.inject({ method: 'GET', url: base, headers })).json().length;
        const res = await t.inject({ method: 'POST', url: base, headers, payload: given });
        expectClientError(res, `POST ${JSON.stringify(given)}`);
        expect([201, 404, 422], res.body).toContain(res.statusCode);
        const after = (await t.inject({ method: 'GET', url: base, headers })).json().length;
        expect(after).toBe(res.statusCode === 201 ? before + res.json().licenses.length : before);
      }),
      { seed: 42, numRuns: 150 },
    );
  });

  it('a license code in any form as path parameter of the admin lookup', async () => {
    const res = await t.inject({ method: 'GET', url: `/api/admin/user/${code.toLowerCase()}`, headers: { authorization: `Bearer ${app.credentials.admin_api_key}` } });
    expectClientError(res, 'admin lookup by unused code');
    expect(res.statusCode).toBe(404);
  });
});

describe('malformed input never yields 5xx with request signing on', () => {
  const integration = [...routes.filter(([, , k]) => k === 'integration').map(([m, path]) => [m, path] as const), ['GET', '/api/integration/files/{id}/download'] as const];
  const timestamp = fc.oneof(
    asciiHeader,
    fc.integer({ min: -1e6, max: 1e6 }).map((skew) => String(Math.floor(t.clock.now() / 1000) + skew)),
    fc.constantFrom('1e12', '99999999999999999999', '-1', '0x10', ' 1'),
  );
  const nonce = fc.oneof(
    asciiHeader,
    fc.constant('').map(() => freshNonce()),
    fc.stringMatching(/^[A-Za-z0-9_-]{10,70}$/),
  );
  const signature = fc.oneof(
    asciiHeader,
    fc.base64String({ maxLength: 60 }).map((b) => `v1=${b}`),
    fc.constantFrom('v1=', 'v1= ', 'v2=abc'),
  );
  const credentialHeaders = fc.dictionary(fc.constantFrom('authorization', 'x-api-license-code', 'x-api-username', 'x-api-password', 'x-hardware-id'), asciiHeader);
  /** Bodies the routes accept, so that many requests get as far as the signature check and past it. */
  const wellFormed = fc.constantFrom<unknown>(
    { username: 'someone', password: 'password123' },
    { code },
    { credentials: { username: 'alice', password: 'whatever password' } },
    { code, username: 'alice', password: 'whatever password' },
    {},
  );
  /** A body as the bytes sent and their media type: JSON of any shape, or any raw payload. */
  const sentBody = fc.oneof(
    { arbitrary: fc.oneof(wellFormed, body).map((value) => ({ payload: JSON.stringify(value) ?? 'null', type: 'application/json' })), weight: 3 },
    { arbitrary: rawPayload, weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 2 },
  );
  /** Mostly absent (the signer's own, well-formed value), sometimes anything. */
  const mostlyValid = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary, weight: 1 });

  it('signed correctly or not, with any signature headers, credentials and body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...integration),
        pathParam,
        sentBody,
        mostlyValid(credentialHeaders),
        fc.record({ timestamp: mostlyValid(timestamp), nonce: mostlyValid(nonce), signature: mostlyValid(signature) }),
        fc.boolean(),
        async ([method, template], param, sent, credentials, presented, signItCorrectly) => {
          const url = fill(template, param);
          const headers: Record<string, string> = { ...signing.headers, ...(credentials ?? {}), ...(sent === undefined ? {} : { 'content-type': sent.type }) };
          const ts = presented.timestamp ?? String(Math.floor(t.clock.now() / 1000));
          const n = presented.nonce ?? freshNonce();
          const correct = signRequest({ method, url, headers, ...(sent === undefined ? {} : { body: sent.payload }), timestamp: ts, nonce: n }, signing.credentials.request_signing_key);
          const signed = { ...headers, 'x-timestamp': ts, 'x-nonce': n, 'x-signature': signItCorrectly ? correct : (presented.signature ?? correct) };
          const res = await t.inject({ method, url, headers: signed, ...(sent === undefined || method === 'GET' ? {} : { payload: sent.payload }) });
          expectClientError(res, `${method} ${url} ${JSON.stringify(presented)}`);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('trials: malformed start_trial bodies and trial_plan_id settings', () => {
  const text = fc.oneof(fc.string({ maxLength: 300 }), withLoneSurrogates, fc.constantFrom('', 'x'.repeat(5000), '\u0000'));
  const anything = fc.oneof(text, fc.jsonValue({ maxDepth: 2 }), fc.integer(), fc.constant(null));
  const credentials = fc.oneof(fc.record({ username: fc.oneof(fc.constant('alice'), anything), password: anything }), fc.record({ code: fc.oneof(fc.constant(code), anything) }), anything);
  const trialBody = fc.oneof(fc.record({ credentials, hardware_id: anything }, { requiredKeys: [] }), fc.record({ credentials, hardware_id: text, extra: anything }), anything);

  it('start_trial answers 4xx with a code, never 5xx, whatever the body', async () => {
    await fc.assert(
      fc.asyncProperty(trialBody, async (payload) => {
        const res = await t.inject({ method: 'POST', url: '/api/integration/start_trial', headers: app.headers, payload: payload as object });
        expectClientError(res, `start_trial ${JSON.stringify(payload)?.slice(0, 200)}`);
        // No trial plan is named for this application: nothing is ever granted.
        expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: 200 },
    );
  });

  it('a trial_plan_id that is not a trial plan of the application is refused with a code and nothing written', async () => {
    const setting = fc.oneof(anything, fc.uuid(), fc.constant(planId), pathParam);
    const url = `/api/console/applications/${app.id}`;
    const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
    if (owner === null) throw new Error('no owner');
    // A token of its own: another case signs the harness's out.
    const authorization = `Bearer ${(await issueConsoleToken(t.deps, owner)).token}`;
    const read = async () => (await t.inject({ method: 'GET', url, headers: { authorization } })).json();
    const before = await read();
    await fc.assert(
      fc.asyncProperty(setting, async (trialPlanId) => {
        const res = await t.inject({ method: 'PATCH', url, headers: { authorization }, payload: { trial_plan_id: trialPlanId, session_ttl_seconds: 900 } });
        expectClientError(res, `trial_plan_id ${JSON.stringify(trialPlanId)?.slice(0, 200)}`);
        if (trialPlanId === null) {
          expect(res.statusCode).toBe(200);
          await t.inject({ method: 'PATCH', url, headers: { authorization }, payload: { session_ttl_seconds: before.session_ttl_seconds } });
        } else {
          expect([404, 422]).toContain(res.statusCode);
          expect(await read()).toEqual(before);
        }
      }),
      { numRuns: 200 },
    );
  });
});
