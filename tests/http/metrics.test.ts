// Prometheus metrics (docs/configuration.md, Metrics): answers counted by route template and status, refusals by
// code, the password work and file jobs as gauges; off unless asked for; labels never carry what a
// client wrote.
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/adapters/http/metrics.js';
import { listenForMetrics } from '../../src/adapters/http/metrics-server.js';
import { processAll, upload } from '../support/files.js';
import { login, member } from '../support/integration.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(() => t.close());

/** The samples of a scrape: `name{labels}` to value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

async function scrape(app: TestApp): Promise<{ text: string; values: Map<string, number> }> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text: res.body, values: samples(res.body) };
}

const LOGIN = '/api/integration/auth/login';

describe('GATEHOUSE_METRICS=1', () => {
  it('counts a login, a failed login and an upload, and shows the file job until it is processed', async () => {
    t = await startTestApp({ metrics: true });
    const app = await createApplication(t, { device_auth: false });
    const alice = await member(t, app, 'alice');
    expect((await login(t, app, { username: 'alice', password: alice.password })).statusCode).toBe(200);
    expect((await login(t, app, { username: 'alice', password: 'wrong password' })).statusCode).toBe(401);
    const auth = `Bearer ${app.credentials.admin_api_key}`;
    const fields = { name: 'game.zip', is_public: 'false', store_encrypted: 'false' };
    expect((await upload(t, 'POST', '/api/admin/files', auth, fields, { content: randomBytes(1000) })).statusCode).toBe(201);

    const before = (await scrape(t)).values;
    expect(before.get(`gatehouse_http_requests_total{method="POST",route="${LOGIN}",status="200"}`)).toBe(1);
    expect(before.get(`gatehouse_http_requests_total{method="POST",route="${LOGIN}",status="401"}`)).toBe(1);
    expect(before.get(`gatehouse_error_responses_total{route="${LOGIN}",code="INVALID_CREDENTIALS"}`)).toBe(1);
    expect(before.get('gatehouse_auth_refusals_total{code="INVALID_CREDENTIALS"}')).toBe(1);
    expect(before.get(`gatehouse_http_request_duration_seconds_count{method="POST",route="${LOGIN}"}`)).toBe(2);
    expect(before.get('gatehouse_http_requests_total{method="POST",route="/api/admin/files",status="201"}')).toBe(1);
    expect(before.get('gatehouse_file_jobs{phase="due"}')).toBe(1);
    expect(before.get('gatehouse_file_jobs{phase="running"}')).toBe(0);
    expect(before.get('gatehouse_password_work{state="running"}')).toBe(0);
    expect(before.get('gatehouse_password_work{state="waiting"}')).toBe(0);
    expect(before.get('gatehouse_db_connections')).toBeGreaterThanOrEqual(1);
    expect(before.get('gatehouse_db_operations_in_flight')).toBe(0);
    // Process metrics come with them.
    expect(before.get('gatehouse_process_cpu_user_seconds_total')).toBeGreaterThan(0);

    t.clock.advance(90_000);
    expect(before.get('gatehouse_file_job_oldest_age_seconds{phase="due"}')).toBe(0);
    expect((await scrape(t)).values.get('gatehouse_file_job_oldest_age_seconds{phase="due"}')).toBe(90);
    expect(await processAll(t)).toBe(1);
    const after = (await scrape(t)).values;
    expect(after.get('gatehouse_file_jobs{phase="due"}')).toBe(0);
    expect(after.get('gatehouse_file_job_oldest_age_seconds{phase="due"}')).toBe(0);
  });

  it('counts throttle and ban refusals by code', async () => {
    t = await startTestApp({ metrics: true, limits: { lockoutThreshold: 2 } });
    const app = await createApplication(t, { device_auth: false });
    const bob = await member(t, app, 'bob');
    for (let i = 0; i < 3; i++) await login(t, app, { username: 'bob', password: `wrong ${i}` });
    const ban = await t.inject({
      method: 'POST',
      url: `/api/console/applications/${app.id}/bans`,
      headers: { authorization: `Bearer ${t.ownerToken}` },
      payload: { type: 'ip', value: '203.0.113.9' },
    });
    expect(ban.statusCode).toBe(201);
    expect((await login(t, app, { username: 'bob', password: bob.password }, {}, { ip: '203.0.113.9' })).statusCode).toBe(403);
    const values = (await scrape(t)).values;
    expect(values.get('gatehouse_throttle_refusals_total{code="ACCOUNT_LOCKED"}')).toBe(1);
    expect(values.get('gatehouse_ban_refusals_total')).toBe(1);
    expect(values.get('gatehouse_auth_refusals_total{code="BANNED"}')).toBe(1);
  });

  it('labels carry route templates, never the paths, headers or bodies clients send', async () => {
    t = await startTestApp({ metrics: true });
    const app = await createApplication(t, { device_auth: false, anonymous_access: true });
    const marker = `zz${randomBytes(8).toString('hex')}`;
    const fileId = randomUUID();
    await t.inject({ method: 'GET', url: `/api/integration/files/${fileId}/download`, headers: app.headers });
    await t.inject({ method: 'GET', url: `/${marker}?q=${marker}`, headers: { 'user-agent': marker } });
    await t.inject({ method: 'POST', url: LOGIN, headers: { ...app.headers, 'content-type': 'application/json' }, payload: `{"${marker}":1}` });
    const { text, values } = await scrape(t);
    expect(text).not.toContain(marker);
    expect(text).not.toContain(fileId);
    expect(values.get('gatehouse_http_requests_total{method="GET",route="/api/integration/files/:file_id/download",status="404"}')).toBe(1);
    expect(values.get('gatehouse_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(values.get(`gatehouse_error_responses_total{route="${LOGIN}",code="VALIDATION_FAILED"}`)).toBe(1);
  });
});

describe('off by default', () => {
  it('has no /metrics route and counts nothing', async () => {
    t = await startTestApp();
    const res = await t.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error_code: 'NOT_FOUND' });
  });
});

describe('GATEHOUSE_METRICS_PORT', () => {
  it('serves GET /metrics on a listener of its own, and nothing else there', async () => {
    t = await startTestApp();
    const metrics = createMetrics(t.deps);
    const server = await listenForMetrics(metrics, '127.0.0.1', 0);
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const ok = await fetch(`${base}/metrics`);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('gatehouse_file_jobs{phase="due"} 0');
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
      // The service's own port does not serve them.
      expect((await t.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
