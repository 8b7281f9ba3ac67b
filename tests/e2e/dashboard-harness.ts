// What the dashboard's end-to-end test runs on: the SPA built now (never stale assets), a real
// listening Gatehouse serving it, file processing, webhook delivery and audit chaining running, a clock that follows real time, and
// Debian's chromium driven by playwright-core.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { repoRoot } from '../support/server-process.js';
import { issueConsoleToken } from '../../src/application/console/owners.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(repoRoot, 'tests', 'e2e', 'screenshots');

/**
 * Without chromium the test skips with a notice, except where every test must run (CI sets
 * GATEHOUSE_REQUIRE_POSTGRES_TESTS): there a missing browser fails.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env['GATEHOUSE_REQUIRE_POSTGRES_TESTS']) return true; // launching fails, loudly
  console.warn(`${CHROMIUM} is missing: the dashboard's end-to-end tests are skipped (apt-get install chromium)`);
  return false;
}

/** Builds the dashboard with Vite's API into a fresh folder. */
export async function buildDashboard(): Promise<{ dir: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-dashboard-'));
  await build({
    configFile: resolve(repoRoot, 'src/adapters/dashboard/vite.config.ts'),
    build: { outDir: dir, emptyOutDir: true },
    logLevel: 'warn',
  });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface DashboardServer {
  t: TestApp;
  base: string;
  close(): Promise<void>;
}

export async function startDashboardServer(dashboardDir: string, options: { withoutOwner?: boolean } = {}): Promise<DashboardServer> {
  // Webhook receivers on loopback, as the tests run theirs (docs/api.md, Webhooks).
  const t = await startTestApp({ dashboardDir, webhooksAllowPrivate: true, ...options });
  // Real time: what the browser shows (and the timeouts it sets) line up with the server's clock.
  t.clock.set(Date.now());
  const ticker = setInterval(() => t.clock.set(Date.now()), 50);
  // The ready-made owner's token was made at the test clock's start, months ago by now: idle
  // past its expiry (docs/configuration.md, Configuration: GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS). A fresh one.
  const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
  if (owner === null && !options.withoutOwner) throw new Error('no ready-made owner');
  if (owner !== null) t.ownerToken = (await issueConsoleToken(t.deps, owner)).token;
  t.processor.start();
  t.webhooks.start();
  t.chainer.start();
  await t.http.listen({ host: '127.0.0.1', port: 0 });
  const address = t.http.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return {
    t,
    base: `http://127.0.0.1:${address.port}`,
    async close() {
      clearInterval(ticker);
      await t.close();
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** A browser context at a viewport, collecting CSP violations, page errors and requests without CSRF token as they happen. */
export async function openPage(browser: Browser, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
  });
  // Every state-changing console request but the sign-in itself carries the CSRF token.
  page.on('request', (r) => {
    const { pathname } = new URL(r.url());
    const signIn = r.method() === 'POST' && pathname === '/api/console/session';
    if (pathname.startsWith('/api/console/') && !['GET', 'HEAD'].includes(r.method()) && !signIn && !r.headers()['x-csrf-token']) {
      problems.push(`no X-CSRF-Token: ${r.method()} ${pathname}`);
    }
  });
  page.setDefaultTimeout(20_000);
  return { context, page, problems };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const { width, height } = page.viewportSize() ?? DESKTOP;
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}x${height}.png`), fullPage: true });
}

/** document.documentElement's scroll width and client width: equal when nothing scrolls sideways. */
export function horizontalFit(page: Page): Promise<{ scrollWidth: number; clientWidth: number }> {
  // A string, as this file is compiled without the DOM's types.
  return page.evaluate<{ scrollWidth: number; clientWidth: number }>('({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })');
}

/** Clicks the confirmation modal's confirm button. */
export async function confirm(page: Page): Promise<void> {
  await page.getByRole('dialog').getByTestId('confirm').click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
}

/** A client application's call to the integration API, with the application's key and secret. */
export async function integrationPost(base: string, api: { key: string; secret: string }, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/integration${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': api.key, 'x-api-secret': api.secret },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A client application's GET on the integration API, with the application's key and secret and no user credentials. */
export async function integrationGet(base: string, api: { key: string; secret: string }, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/integration${path}`, { headers: { 'x-api-key': api.key, 'x-api-secret': api.secret } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
