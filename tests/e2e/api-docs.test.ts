// The API reference page (/api/docs) in a real browser: it renders every operation of the
// OpenAPI document under the dashboard's CSP, with no refusal and no script error.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.js';
import { browserAvailable, DESKTOP, launchChromium, openPage } from './dashboard-harness.js';

describe.skipIf(!browserAvailable())('API reference page in a browser', { timeout: 60_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp();
    base = await listenOnLoopback(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists every operation of the document, its error codes with examples, and breaks no CSP rule', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    const { context, page, problems } = await openPage(browser, DESKTOP);
    await page.goto(`${base}/api/docs`);
    await page
      .locator('section.op')
      .nth(operations - 1)
      .waitFor();
    expect(await page.locator('section.op').count()).toBe(operations);
    const login = page.locator('section.op', { hasText: '/api/integration/auth/login' });
    await expect(login.getByText('Authentication: applicationKey + applicationSecret').count()).resolves.toBe(1);
    await login.locator('summary', { hasText: /^401: / }).click();
    await expect(login.getByText('Example INVALID_CREDENTIALS').count()).resolves.toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
