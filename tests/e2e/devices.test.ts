// A user's machines on the dashboard's user page, in a real browser against a real listening server
// (docs/machines.md, "Devices"): names, platforms and last seen as the clients said them, and
// dropping one ends its session at once (its token then answers 401).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, member, type TestApplication } from '../support/integration.js';
import { createApplication } from '../support/test-app.js';
import { browserAvailable, buildDashboard, confirm, DESKTOP, horizontalFit, launchChromium, openPage, PHONE, screenshot, startDashboardServer, type DashboardServer } from './dashboard-harness.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

describe.skipIf(!browserAvailable())('a user’s machines in the dashboard', { timeout: 120_000 }, () => {
  let build: Awaited<ReturnType<typeof buildDashboard>>;
  let server: DashboardServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let app: TestApplication;
  let userId: string;
  const tokens: Record<string, string> = {};
  const credentials = { username: 'alice', password: 'correct horse battery' };

  beforeAll(async () => {
    build = await buildDashboard();
    server = await startDashboardServer(build.dir);
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, DESKTOP));
    app = await createApplication(server.t, { device_auth: true, default_allowed_devices: 3, default_allowed_sessions: 3 });
    userId = (await member(server.t, app, credentials.username, credentials.password, null, { hardware_id: 'HW-LAPTOP' })).id;
    const machines = [
      ['HW-LAPTOP', { name: 'Work laptop', platform: 'windows', app_version: '3.1.0' }],
      ['HW-DESK', { name: 'Home desktop', platform: 'linux', app_version: '3.0.2' }],
    ] as const;
    for (const [hardwareId, device] of machines) {
      const res = await call(server.t, app, 'POST', '/auth/login', { credentials, hardware_id: hardwareId, device });
      if (res.statusCode !== 200) throw new Error(`login: ${res.statusCode} ${res.body}`);
      tokens[hardwareId] = res.json<{ session_token: string }>().session_token;
    }
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    build?.remove();
  });

  const appContext = (hardwareId: string) => call(server.t, app, 'GET', '/app_context', undefined, { headers: { authorization: `Bearer ${tokens[hardwareId]}` } });

  it('shows the machines with their names, platforms and last seen', async () => {
    await page.goto(`${server.base}/dashboard/`);
    await page.locator('input[name=email]').fill(OWNER.email);
    await page.locator('input[name=password]').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.goto(`${server.base}/dashboard/apps/${app.id}/users/${userId}`);
    const rows = page.getByTestId('device-row');
    await expect.poll(() => rows.count()).toBe(2);
    const text = (await rows.allTextContents()).join('\n');
    for (const said of ['Work laptop', 'HW-LAPTOP', 'windows · 3.1.0', 'Home desktop', 'linux · 3.0.2', '127.0.0.1']) expect(text).toContain(said);
    for (const lastSeen of await page.getByTestId('device-last-seen').allTextContents()) expect(lastSeen.trim()).not.toBe('');
    await screenshot(page, 'user-devices');
    await page.setViewportSize(PHONE);
    const fit = await horizontalFit(page);
    expect(fit.scrollWidth).toBeLessThanOrEqual(fit.clientWidth);
    await page.setViewportSize(DESKTOP);
    expect(problems).toEqual([]);
  });

  it('dropping one ends its session at once: its token answers 401, the other machine’s still works', async () => {
    expect((await appContext('HW-DESK')).statusCode).toBe(200);
    const desk = page.getByTestId('device-row').filter({ hasText: 'Home desktop' });
    await desk.getByRole('button', { name: 'Drop' }).click();
    await confirm(page);
    await expect.poll(() => page.getByTestId('device-row').count()).toBe(1);
    expect(await page.getByTestId('device-row').textContent()).toContain('Work laptop');
    expect((await appContext('HW-DESK')).statusCode).toBe(401);
    expect((await appContext('HW-LAPTOP')).statusCode).toBe(200);
    expect(problems).toEqual([]);
  });
});
