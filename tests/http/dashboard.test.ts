// Serving the dashboard's build under /dashboard: assets, the client-side route fallback, the
// security headers on every answer, refusal of traversal, and 503 while nothing is built.
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultDashboardDir } from '../../src/adapters/http/dashboard.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const INDEX = '<!doctype html><html><head><script type="module" src="/dashboard/assets/x-1a2b3c.js"></script></head><body></body></html>';
const SCRIPT = 'console.log("dashboard");\n';
const SECRET = 'top secret, outside the build';

let parent: string;
let built: string;
beforeAll(() => {
  parent = mkdtempSync(join(tmpdir(), 'gatehouse-dashboard-'));
  built = join(parent, 'dashboard');
  mkdirSync(join(built, 'assets'), { recursive: true });
  writeFileSync(join(built, 'index.html'), INDEX);
  writeFileSync(join(built, 'assets', 'x-1a2b3c.js'), SCRIPT);
  writeFileSync(join(built, 'assets', 'style-9f8e.css'), 'body{margin:0}');
  writeFileSync(join(built, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(built, '.env'), SECRET);
  writeFileSync(join(parent, 'secret.txt'), SECRET);
  symlinkSync(join(parent, 'secret.txt'), join(built, 'assets', 'linked.js'));
});
afterAll(() => rmSync(parent, { recursive: true, force: true }));

let t: TestApp;
afterEach(() => t.close());

const get = (url: string, method: 'GET' | 'HEAD' | 'POST' = 'GET') => t.inject({ method, url });

function expectSecurityHeaders(res: { headers: Record<string, unknown> }) {
  expect(res.headers['content-security-policy']).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-frame-options']).toBe('DENY');
}

describe('a built dashboard', () => {
  it('redirects / and /dashboard to /dashboard/ and serves index.html there, uncached', async () => {
    t = await startTestApp({ dashboardDir: built });
    const redirect = await get('/dashboard');
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('/dashboard/');
    expectSecurityHeaders(redirect);
    expect((await get('/dashboard?next=x')).headers.location).toBe('/dashboard/?next=x');
    // The bare address, opened in a browser, leads to the dashboard too.
    const root = await get('/');
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/dashboard/');

    const page = await get('/dashboard/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).toBe(INDEX);
    expectSecurityHeaders(page);
  });

  it('answers index.html for client-side routes', async () => {
    t = await startTestApp({ dashboardDir: built });
    for (const url of ['/dashboard/applications', '/dashboard/applications/0b6d1f2e-1111-4222-8333-444455556666/users?page=2', '/dashboard/sign-in/', '/dashboard/a%20b']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(INDEX);
      expect(res.headers['cache-control']).toBe('no-cache');
      expectSecurityHeaders(res);
    }
  });

  it('serves built assets with their content type and a year-long immutable cache', async () => {
    t = await startTestApp({ dashboardDir: built });
    const js = await get('/dashboard/assets/x-1a2b3c.js');
    expect(js.statusCode).toBe(200);
    expect(js.body).toBe(SCRIPT);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['content-length']).toBe(String(Buffer.byteLength(SCRIPT)));
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expectSecurityHeaders(js);
    expect((await get('/dashboard/assets/style-9f8e.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    const head = await get('/dashboard/assets/x-1a2b3c.js', 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // Files beside index.html (Vite's public folder) are served, but revalidated: their names carry no hash.
    const icon = await get('/dashboard/favicon.svg');
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('answers 404, never index.html, for a missing asset', async () => {
    t = await startTestApp({ dashboardDir: built });
    for (const url of ['/dashboard/assets/gone-123.js', '/dashboard/assets/', '/dashboard/assets/sub/x.js', '/dashboard/assets/a%20b.js']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error_code).toBe('NOT_FOUND');
      expectSecurityHeaders(res);
    }
  });

  it('refuses path traversal, encoded or not, and symlinks out of the build; dot files are routes, not files', async () => {
    t = await startTestApp({ dashboardDir: built });
    for (const url of ['/dashboard/assets/..%2f..%2fsecret.txt', '/dashboard/%2E%2E%2Fsecret.txt', '/dashboard/..%5csecret.txt', '/dashboard/assets/linked.js']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain(SECRET);
      expect(res.headers['x-frame-options'], url).toBe('DENY');
    }
    const dotFile = await get('/dashboard/.env');
    expect(dotFile.statusCode).toBe(200);
    expect(dotFile.body).toBe(INDEX);
  });

  it('refuses ../ and %2e%2e/ sent as such on the wire (injected requests are normalised first)', async () => {
    t = await startTestApp({ dashboardDir: built });
    const { port } = new URL(await t.http.listen({ port: 0, host: '127.0.0.1' }));
    const send = (path: string) =>
      new Promise<string>((done, fail) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('utf8')));
        socket.on('end', () => done(text));
        socket.on('error', fail);
      });
    for (const path of ['/dashboard/../secret.txt', '/dashboard/%2e%2e/secret.txt', '/dashboard/assets/../../secret.txt', '/dashboard/assets/%2e%2e/%2e%2e/secret.txt']) {
      const raw = await send(path);
      expect(raw, path).toMatch(/^HTTP\/1\.1 404 /);
      expect(raw).not.toContain(SECRET);
      expect(raw.toLowerCase()).toContain('x-frame-options: deny');
    }
  });

  it('keeps the headers on answers no route gives', async () => {
    t = await startTestApp({ dashboardDir: built });
    const res = await get('/dashboard/assets/x-1a2b3c.js', 'POST');
    expect(res.statusCode).toBe(404);
    expect(res.json().error_code).toBe('NOT_FOUND');
    expectSecurityHeaders(res);
    const badUrl = await get('/dashboard/%zz');
    expect(badUrl.statusCode).toBe(400);
    expectSecurityHeaders(badUrl);
    // Elsewhere they are not added.
    expect((await get('/healthz')).headers['content-security-policy']).toBeUndefined();
  });
});

describe('no dashboard built', () => {
  it('answers 503 with a clear message until index.html exists', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'gatehouse-no-dashboard-'));
    try {
      t = await startTestApp({ dashboardDir: join(empty, 'missing') });
      for (const url of ['/dashboard/', '/dashboard/assets/x-1a2b3c.js', '/dashboard/applications']) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(503);
        expect(res.json()).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE', message: 'the dashboard is not built: run npm run build' });
        expectSecurityHeaders(res);
      }
      expect((await get('/dashboard')).statusCode).toBe(302);
      // Built while the server runs: served without a restart.
      mkdirSync(join(empty, 'missing'));
      writeFileSync(join(empty, 'missing', 'index.html'), INDEX);
      expect((await get('/dashboard/')).body).toBe(INDEX);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('looks for the build in dist/dashboard at the repository root by default', () => {
    expect(defaultDashboardDir()).toBe(resolve(import.meta.dirname, '../../dist/dashboard'));
  });
});
