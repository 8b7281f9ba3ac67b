// The dashboard end to end, in a real browser against a real listening server: an owner signs in,
// creates an application, issues licenses, sees users who signed up through the integration API,
// times one out, rotates the response signing key, edits an announcement and sees clients see it
// (or not), keeps plans, uploads a file until it is COMPLETED and replaces its contents, deletes an
// application; another owner sees none of it; every main page fits a desktop and a phone; no
// inline script, a CSP, and the session cookie's flags.
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner } from '../../src/application/console/owners.js';
import { pinnedEd25519Keys } from '../../src/signing/ed25519.js';
import { verifyLicenseFile } from '../../src/signing/license-file.js';
import { createApplication } from '../support/test-app.js';
import {
  browserAvailable,
  buildDashboard,
  confirm,
  DESKTOP,
  horizontalFit,
  integrationGet,
  integrationPost,
  launchChromium,
  openPage,
  PHONE,
  screenshot,
  startDashboardServer,
  type DashboardServer,
} from './dashboard-harness.js';
import { startReceiver, verifyDelivery } from '../support/webhook-receiver.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };
const OTHER = { email: 'other@example.com', password: 'other-password-1' };

/** The dashboard's page size (components/pager.tsx), which its audit log asks the API for. */
const PAGE = 20;

type AuditEntry = {
  id: string;
  action: string;
  occurred_at: string;
  actor: { type: string; id: string | null };
  target: { type: string; id: string; label: string | null };
  changes: Record<string, unknown[]> | null;
};
type AuditPage = { entries: AuditEntry[]; next_cursor: string | null; names: Record<string, string> };
type Endpoint = { id: string; url: string; events: string[]; enabled: boolean; disabled_reason: string | null };

describe.skipIf(!browserAvailable())('dashboard in a browser', { timeout: 120_000 }, () => {
  let build: Awaited<ReturnType<typeof buildDashboard>>;
  let server: DashboardServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let base: string;
  let appId = '';
  let api: { key: string; secret: string };
  const codes: string[] = [];

  beforeAll(async () => {
    build = await buildDashboard();
    server = await startDashboardServer(build.dir);
    base = server.base;
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, DESKTOP));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    build?.remove();
  });

  const integration = (path: string, body: unknown) => integrationPost(base, api, path, body);
  /** What the console API holds, asked with the owner's own token (not the browser's session). */
  const consoleGet = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await server.t.inject({ method: 'GET', url: `/api/console${path}`, headers: { authorization: `Bearer ${server.t.ownerToken}` } });
    return { status: res.statusCode, body: res.json<T>() };
  };
  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  /**
   * Parsing the hostile announcement (DOMPurify's inert document inherits the page's CSP) draws
   * the CSP's refusals of its handlers and style: reported, blocked, and never in the preview.
   * Takes them out of `problems`, checking they are those and nothing else.
   */
  const cspRefusalsOfThePreview = () => {
    for (const refusal of problems.splice(0)) expect(refusal).toMatch(/^CSP: (Executing inline event handler|Applying inline style) violates/);
  };

  it('serves index.html with a CSP and without inline script or style', async () => {
    const res = await fetch(`${base}/dashboard/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/dashboard\/assets\//);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
  });

  it('says on a fresh install that there is no owner yet, with the command that creates one, until there is', async () => {
    const fresh = await startDashboardServer(build.dir, { withoutOwner: true });
    const first = await openPage(browser, DESKTOP);
    try {
      await first.page.goto(`${fresh.base}/dashboard/`);
      const notice = first.page.locator('[data-no-owner]');
      await notice.waitFor();
      expect(await notice.textContent()).toContain('No owner yet.');
      expect(await notice.locator('code').first().textContent()).toBe('npm run --silent gatehouse -- owner create --email you@example.com');
      await screenshot(first.page, 'sign-in-no-owner');
      await first.page.setViewportSize(PHONE);
      const fit = await horizontalFit(first.page);
      expect(fit.scrollWidth).toBeLessThanOrEqual(fit.clientWidth);
      await screenshot(first.page, 'sign-in-no-owner');
      await first.page.setViewportSize(DESKTOP);

      // The owner made with the CLI meanwhile signs in; the notice was about this install only.
      await createOwner(fresh.t.deps, 'first@example.com', 'first-password-1');
      await first.page.locator('input[name=email]').fill('first@example.com');
      await first.page.locator('input[name=password]').fill('first-password-1');
      await first.page.getByRole('button', { name: 'Sign in' }).click();
      await first.page.getByRole('heading', { name: 'Applications' }).waitFor();
      expect(first.problems).toEqual([]);
    } finally {
      await first.context.close();
      await fresh.close();
    }
  });

  it('signs in with an HttpOnly, SameSite=Strict session cookie', async () => {
    await page.goto(`${base}/dashboard/`);
    await page.locator('input[name=email]').waitFor();
    // An owner exists here: no first-owner notice, but the way back from a lost password.
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.locator('[data-no-owner]').count()).toBe(0);
    await page.getByText('Forgot your password?').click();
    const lost = page.locator('details.lost-password');
    await expect
      .poll(() => lost.locator('code').allTextContents())
      .toEqual(['npm run --silent gatehouse -- owner reset-password --email you@example.com', 'npm run --silent gatehouse -- owner login --email you@example.com']);
    await screenshot(page, 'sign-in');
    await page.locator('input[name=email]').fill(OWNER.email);
    await page.locator('input[name=password]').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The email or password is wrong.');
    await page.locator('input[name=password]').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();

    // The cookie's path is /api/console: ask for it there.
    const cookies = await context.cookies(`${base}/api/console/session`);
    const session = cookies.find((c) => c.name === 'gh_console');
    expect(session).toBeDefined();
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/console' });
    // Neither the token nor the cookie is in reach of the page's scripts.
    expect(await page.evaluate<string>('document.cookie')).not.toContain('gh_console');
    // No script without src and no style attribute in the live DOM either.
    expect(await page.evaluate<number>("document.querySelectorAll('script:not([src]), [style], style').length")).toBe(0);
  });

  it('creates an application and shows its credentials once', async () => {
    await page.getByRole('link', { name: 'New application' }).click();
    await page.locator('input[name=name]').fill('Acme Desktop');
    await page.locator('input[name=legacy_auth]').check();
    await screenshot(page, 'new-application');
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.getByText('you will not see them again').waitFor();
    api = {
      key: (await page.locator('[data-secret=api_key]').textContent()) ?? '',
      secret: (await page.locator('[data-secret=api_secret]').textContent()) ?? '',
    };
    expect(api.key).toMatch(/^gh_/);
    expect(await page.locator('[data-secret=admin_api_key]').textContent()).toBeTruthy();
    expect(await page.locator('[data-secret=files_encryption_key]').textContent()).toBeTruthy();
    expect(await page.locator('[data-secret=request_signing_key]').textContent()).toBeTruthy();
    expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(5);
    await screenshot(page, 'credentials-once');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByTestId('overview-stats').waitFor();
    appId = new URL(page.url()).pathname.split('/')[3] ?? '';
    expect(appId).toMatch(/^[0-9a-f-]{36}$/);

    // Going back to the list shows it, and the credentials are nowhere to be seen again.
    await page.goto(`${base}/dashboard/`);
    await page.getByText('Acme Desktop').waitFor();
    expect(await page.content()).not.toContain(api.secret);
    await screenshot(page, 'applications');
  });

  it('generates licenses, filters and searches them, and exports a safe CSV', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/licenses`);
    await page.locator('input[name=count]').fill('3');
    await page.locator('input[name=amount]').fill('12');
    await page.locator('select[name=unit]').selectOption('hours');
    await page.locator('input[name=note]').fill('=HYPERLINK("http://evil")');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByTestId('new-licenses').waitFor();
    codes.push(...((await page.getByTestId('new-licenses').textContent()) ?? '').split('\n').filter(Boolean));
    expect(codes).toHaveLength(3);
    await page.locator('input[name=lifetime]').check();
    await page.locator('input[name=count]').fill('2');
    await page.locator('input[name=note]').fill('lifetime batch');
    await page.getByRole('button', { name: 'Generate' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(5);
    expect(await page.getByText('12 h').count()).toBe(3);
    expect(await page.getByText('Lifetime', { exact: true }).count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'licenses');

    await page.locator('input[name=search]').fill('lifetime batch');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await page.locator('input[name=search]').fill(codes[0]!.slice(0, 8));
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.locator('input[name=search]').fill('');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('"code","grants","minutes","plan_id","seats","redemptions","note","created_at","used_at","used_by_user_id","banned"');
    expect(lines).toHaveLength(6);
    // The formula is neutralised and its quotes doubled.
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(csv).not.toMatch(/(^|,)"=/m);

    // Delete one unused license, through the confirmation modal.
    const last = codes.pop()!;
    await page.locator('input[name=search]').fill(last);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('button', { name: 'Delete' }).click();
    await screenshot(page, 'confirm-delete-license');
    await confirm(page);
    await page.getByText('No licenses match.').waitFor();
    await page.locator('input[name=search]').fill('');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(4);
  });

  it('shows users who signed up through the integration API, with search and detail', async () => {
    const byCode = await integration('/sign_up_with_license_code', { code: codes[0], hardware_id: 'hw-license-1' });
    expect(byCode.status).toBe(201);
    const byPassword = await integration('/sign_up', { username: 'alice', password: 'alice-password-1', hardware_id: 'hw-alice-1' });
    expect(byPassword.status).toBe(201);
    const login = await integration('/auth/login', { credentials: { code: codes[0] }, hardware_id: 'hw-license-1' });
    expect(login.status).toBe(200);

    await page.goto(`${base}/dashboard/apps/${appId}/users`);
    await page.getByRole('link', { name: 'alice' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(2);
    await screenshot(page, 'users');

    // A license code finds the user who redeemed it.
    await page.locator('input[name=query]').fill(codes[0]!);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody').textContent()).toContain(String(byCode.body['username']));
    await page.locator('input[name=query]').fill('ALI');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'alice' }).click();
    await page.getByRole('heading', { name: 'alice' }).waitFor();
    await page.getByText('hw-alice-1').waitFor();
    await screenshot(page, 'user-detail');
  });

  it('sets a timeout with a reason, which the integration API enforces, and lifts it', async () => {
    await page
      .locator('section.card', { has: page.getByRole('heading', { name: 'Timeout' }) })
      .locator('input[name=reason]')
      .fill('chargeback under review');
    await page.getByRole('button', { name: 'Set timeout' }).click();
    await page.getByText('chargeback under review').waitFor();
    await page
      .getByText(/timed out until/)
      .first()
      .waitFor();
    await screenshot(page, 'user-timed-out');
    const refused = await integration('/auth/login', { credentials: { username: 'alice', password: 'alice-password-1' }, hardware_id: 'hw-alice-1' });
    expect(refused.body).toMatchObject({ error_code: 'TIMED_OUT', reason: 'chargeback under review' });

    await page.getByRole('button', { name: 'Lift timeout' }).click();
    await confirm(page);
    await page.getByRole('button', { name: 'Set timeout' }).waitFor();
    const after = await integration('/auth/login', { credentials: { username: 'alice', password: 'alice-password-1' }, hardware_id: 'hw-alice-1' });
    expect(after.body['error_code']).toBe('MEMBERSHIP_INACTIVE'); // no longer timed out; never activated
  });

  it('extends the selected users in bulk, with a reason in their history', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/users`);
    await page.getByRole('link', { name: 'alice' }).waitFor();
    await page.getByLabel('Select alice').check();
    await page.locator('input[name=amount]').fill('7');
    await page.locator('input[name=reason]').fill('support goodwill');
    await screenshot(page, 'bulk-adjust');
    await page.getByRole('button', { name: 'Apply to 1 user' }).click();
    await confirm(page);
    await page.getByText('1 user adjusted.').waitFor();
    await page.getByRole('link', { name: 'alice' }).click();
    await page.getByText('support goodwill').waitFor();
    expect(await page.getByText('+7 d').count()).toBe(1);
    const login = await integration('/auth/login', { credentials: { username: 'alice', password: 'alice-password-1' }, hardware_id: 'hw-alice-1' });
    expect(login.status).toBe(200);
  });

  it('downloads an offline license file for an air-gapped machine from the user page, which registers the machine', async () => {
    // On alice's page, with the 7 days of the test before. Her one device slot is taken by hw-alice-1.
    await page.locator('input[name=license_file_hardware_id]').fill('hw-air-1');
    await page.getByRole('button', { name: 'Download license file' }).click();
    await page.getByText('this account has reached its number of allowed devices').waitFor();
    await page.locator('input[name=allowed_devices]').fill('2');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText('Limits saved.').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download license file' }).click()]);
    expect(download.suggestedFilename()).toBe('alice.lic');
    const text = await readFile(await download.path(), 'utf8');
    const { body: app } = await consoleGet<{ response_signing_public_key: string }>(`/applications/${appId}`);
    const claims = verifyLicenseFile(text, {
      keys: pinnedEd25519Keys(app.response_signing_public_key, 'key'),
      applicationId: appId,
      hardwareId: 'hw-air-1',
      now: Math.floor(server.t.clock.now() / 1000),
    });
    expect(claims.username).toBe('alice');
    await page.getByText(/License file downloaded; it expires/).waitFor();
    await page.getByText('hw-air-1').waitFor();
    await screenshot(page, 'user-license-file');
  });

  it("bans a user and extends their membership from the user's page", async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/users`);
    await page.getByRole('link', { name: 'alice' }).click();
    await page.getByRole('heading', { name: 'alice' }).waitFor();
    const aliceId = new URL(page.url()).pathname.split('/').pop()!;
    const membership = page.locator('section.card', { has: page.getByRole('heading', { name: 'Extend or reduce membership' }) });
    expect(await membership.locator('select[name=mode]').inputValue()).toBe('extend');
    await membership.locator('input[name=amount]').fill('3');
    await membership.locator('input[name=reason]').fill('from her page');
    await membership.getByRole('button', { name: 'Apply' }).click();
    await confirm(page);
    await page.getByText('from her page').waitFor();
    expect(await page.getByText('+3 d').count()).toBe(1);

    // No integration login while banned: a refusal would propagate the ban to the tests' address.
    await page.getByRole('button', { name: 'Ban', exact: true }).click();
    await confirm(page);
    await page.locator('.page-head').getByText('Banned').waitFor();
    const banned = (await consoleGet<Array<{ type: string; value: string }>>(`/applications/${appId}/bans`)).body;
    expect(banned).toEqual([expect.objectContaining({ type: 'user', value: aliceId })]);
    await screenshot(page, 'user-banned');
    await page.getByRole('button', { name: 'Remove ban' }).click();
    await confirm(page);
    await page.getByRole('button', { name: 'Ban', exact: true }).waitFor();
    expect((await consoleGet<unknown[]>(`/applications/${appId}/bans`)).body).toEqual([]);
  });

  it("sets the device reset cooldown, keeps a user's variables, sets their password and shows their device resets", async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/settings`);
    await page.locator('input[name=device_reset_cooldown_hours]').fill('12');
    await page.locator('input[name=max_user_variables]').fill('50');
    await page.locator('input[name=expiry_notice_days]').fill('14');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    type Shown = { device_reset_cooldown_hours: number | null; max_user_variables: number; expiry_notice_days: number };
    expect((await consoleGet<Shown>(`/applications/${appId}`)).body).toMatchObject({ device_reset_cooldown_hours: 12, max_user_variables: 50, expiry_notice_days: 14 });

    // Alice frees her device slot herself, logs in again, and her client keeps a variable.
    const reset = await integration('/reset_devices', { username: 'alice', password: 'alice-password-1' });
    expect(reset.status).toBe(200);
    const login = await integration('/auth/login', { credentials: { username: 'alice', password: 'alice-password-1' }, hardware_id: 'hw-alice-1' });
    expect(login.status).toBe(200);
    const session = String(login.body['session_token']);
    const asAlice = (method: string, name: string, body?: unknown) =>
      fetch(`${base}/api/integration/user_variables/${name}`, {
        method,
        headers: { 'x-api-key': api.key, 'x-api-secret': api.secret, authorization: `Bearer ${session}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await asAlice('PUT', 'save_slot', { value: 'level-3' })).status).toBe(200);

    await page.goto(`${base}/dashboard/apps/${appId}/users`);
    await page.getByRole('link', { name: 'alice' }).click();
    await page.getByRole('heading', { name: 'alice' }).waitFor();
    const resets = page.getByTestId('device-resets');
    await expect.poll(() => resets.textContent()).toContain('at most once every 12 hours');
    expect(await resets.textContent()).toContain('Next reset allowed');
    expect(await resets.textContent()).not.toMatch(/Last resetnever|Next reset allowednow/);
    await page.getByRole('cell', { name: 'save_slot' }).waitFor();

    // The owner adds a variable the client then reads, is told a bad name in words, and deletes one.
    await page.locator('input[name=variable_name]').fill('license_tier');
    await page.locator('textarea[name=variable_value]').fill('gold');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByRole('cell', { name: 'license_tier' }).waitFor();
    expect(await (await asAlice('GET', 'license_tier')).json()).toMatchObject({ name: 'license_tier', value: 'gold' });
    await page.locator('input[name=variable_name]').fill('bad name!');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/name/i);
    await screenshot(page, 'user-variables');
    await page
      .getByRole('row', { name: /save_slot/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await confirm(page);
    await expect.poll(() => page.getByRole('cell', { name: 'save_slot' }).count()).toBe(0);
    expect((await asAlice('GET', 'save_slot')).status).toBe(404);

    // The owner sets a new password: Alice's session ends, the new password is the one.
    await page.locator('input[name=new_password]').fill('alice-password-2');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Password set.').waitFor();
    expect((await asAlice('GET', 'license_tier')).status).toBe(401);
    const old = await integration('/auth/login', { credentials: { username: 'alice', password: 'alice-password-1' }, hardware_id: 'hw-alice-1' });
    expect(old.body['error_code']).toBe('INVALID_CREDENTIALS');
    const fresh = await integration('/auth/login', { credentials: { username: 'alice', password: 'alice-password-2' }, hardware_id: 'hw-alice-1' });
    expect(fresh.status).toBe(200);
  });

  it('previews announcement HTML sanitized: no script, handler or javascript: URL', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/announcements`);
    await page.locator('input[name=title]').fill('Version 2 is out');
    await page.locator('select[name=status]').selectOption('PUBLISHED');
    expect(problems).toEqual([]);
    const hostile =
      '<h3>New</h3><p>Read <a href="javascript:alert(1)">this</a> and <a href="https://example.com/notes">notes</a></p><img src="x" onerror="window.__pwned=1"><script>window.__pwned=2</script><p style="color:red" onclick="window.__pwned=3">styled</p>';
    await page.locator('textarea[name=content_html]').fill(hostile);
    const preview = page.getByTestId('announcement-preview');
    await preview.locator('h3').waitFor();
    const html = await preview.innerHTML();
    expect(html).not.toMatch(/<script|onerror|onclick|javascript:|style=/i);
    expect(html).toContain('https://example.com/notes');
    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
    cspRefusalsOfThePreview();
    await screenshot(page, 'announcements');
    await page.getByRole('button', { name: 'Create announcement' }).click();
    await page.getByRole('cell', { name: 'Version 2 is out' }).waitFor();
    expect(await page.locator('tbody .badge').textContent()).toBe('PUBLISHED');
  });

  it('keeps variables and bans', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/variables`);
    await page.locator('input[name=name]').fill('latest_version');
    await page.locator('textarea[name=value]').fill('2.0.1');
    await page.locator('input[name=is_public]').check();
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByRole('cell', { name: 'latest_version' }).waitFor();
    // A bad name: the API's field error, in words.
    await page.locator('input[name=name]').fill('bad name!');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Name contains characters that are not allowed.');
    await screenshot(page, 'variables');

    await page.goto(`${base}/dashboard/apps/${appId}/bans`);
    await page.locator('input[name=value]').fill('203.0.113.9');
    await page.locator('input[name=reason]').fill('abuse');
    await page.getByRole('button', { name: 'Ban', exact: true }).click();
    await page.getByRole('cell', { name: '203.0.113.9' }).waitFor();
    await screenshot(page, 'bans');
    await page.getByRole('button', { name: 'Remove' }).click();
    await confirm(page);
    await page.getByText('No bans.').waitFor();

    // A user ban: the user picked by name, the API given their id.
    const [alice] = (await consoleGet<Array<{ id: string; username: string }>>(`/applications/${appId}/users?query=alice`)).body;
    await page.locator('select[name=type]').selectOption('user');
    await page.locator('input[name=user_query]').fill('ali');
    await expect.poll(() => page.locator('select[name=user] option').allTextContents()).toEqual(['alice']);
    await screenshot(page, 'bans-user-picker');
    await page.getByRole('button', { name: 'Ban', exact: true }).click();
    await page.getByRole('cell', { name: alice!.id }).waitFor();
    expect((await consoleGet<Array<{ type: string; value: string }>>(`/applications/${appId}/bans`)).body).toEqual([expect.objectContaining({ type: 'user', value: alice!.id })]);
    await page.getByRole('button', { name: 'Remove' }).click();
    await confirm(page);
    await page.getByText('No bans.').waitFor();
  });

  it('adds a webhook endpoint: its secret shown once, a test event delivered, signed and listed with its attempt, redelivered, edited, rotated, disabled and deleted', async () => {
    const receiver = await startReceiver('/hooks/gatehouse', () => ({ status: 200, body: 'thanks from the receiver' }));
    const endpoints = async () => (await consoleGet<Endpoint[]>(`/applications/${appId}/webhooks`)).body;
    try {
      await page.goto(`${base}/dashboard/apps/${appId}/webhooks`);
      await page.getByText('No endpoints yet.').waitFor();
      await page.locator('input[name=url]').fill(receiver.url);
      await page.locator('input[name=description]').fill('provisioning');
      await page.getByLabel('Only these events').check();
      await page.getByLabel('user.created', { exact: true }).check();
      await page.getByLabel('webhook.test', { exact: true }).check();
      await screenshot(page, 'webhook-new');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('you will not see them again').waitFor();
      const secret = (await page.locator('[data-secret=webhook_secret]').textContent()) ?? '';
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(1);
      await screenshot(page, 'webhook-secret-once');
      await page.getByRole('button', { name: 'I have saved them' }).click();
      const row = page.locator(`tr[data-endpoint="${receiver.url}"]`);
      await row.waitFor();
      expect(await row.textContent()).toContain('user.created, webhook.test');
      expect(await row.textContent()).toContain('provisioning');
      expect(await row.getByTestId('endpoint-status').textContent()).toBe('enabled');
      expect(await endpoints()).toMatchObject([{ url: receiver.url, events: ['user.created', 'webhook.test'], enabled: true }]);
      // Shown once: neither the page nor the list API has it again.
      await page.reload();
      await row.waitFor();
      expect(await page.content()).not.toContain(secret);
      expect(JSON.stringify(await endpoints())).not.toContain(secret);

      // A test event: delivered, signed with the secret, and listed with its attempt and the answer.
      await row.getByRole('button', { name: 'Send test' }).click();
      await page.getByText('A webhook.test event is on its way').waitFor();
      const delivery = page.locator('tr[data-event-type="webhook.test"]').first();
      await expect.poll(() => delivery.getByTestId('delivery-state').textContent(), { timeout: 30_000 }).toBe('succeeded');
      expect(receiver.received).toHaveLength(1);
      const sent = receiver.received[0]!;
      expect(sent.headers['content-type']).toMatch(/^application\/json/);
      expect(verifyDelivery(secret, sent)).toMatchObject({ type: 'webhook.test', application_id: appId });
      await delivery.getByRole('button', { name: 'Attempts' }).click();
      await expect.poll(() => page.getByTestId('attempt-status').first().textContent()).toBe('200');
      expect(await page.getByTestId('attempt-answer').first().textContent()).toBe('thanks from the receiver');
      await screenshot(page, 'webhook-deliveries');

      // Redelivered: the same event (its webhook-id) reaches the receiver again.
      await delivery.getByRole('button', { name: 'Redeliver' }).click();
      await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(sent.headers['webhook-id']);
      expect(receiver.received[1]!.body).toBe(sent.body);
      await expect.poll(() => page.locator('tr[data-event-type="webhook.test"] [data-testid=delivery-state]').allTextContents(), { timeout: 30_000 }).not.toContain('pending');

      // Its events edited: all of them.
      await row.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('All events').check();
      await page.getByRole('button', { name: 'Save endpoint' }).click();
      await expect.poll(() => row.locator('td').nth(1).textContent()).toBe('All events');
      expect(await endpoints()).toMatchObject([{ events: ['*'] }]);

      // A new secret, shown once; the next delivery is signed with it.
      await row.getByRole('button', { name: 'Rotate secret' }).click();
      await confirm(page);
      await page.getByText('you will not see them again').waitFor();
      const rotated = (await page.locator('[data-secret=webhook_secret]').textContent()) ?? '';
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await page.getByRole('button', { name: 'I have saved them' }).click();
      await row.getByRole('button', { name: 'Send test' }).click();
      await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(3);
      expect(verifyDelivery(rotated, receiver.received[2]!)).toMatchObject({ type: 'webhook.test' });

      // Disabled by the owner: said in its row, not as a failure at the top.
      await row.getByRole('button', { name: 'Disable' }).click();
      await expect.poll(() => row.getByTestId('endpoint-status').textContent()).toBe('disabled');
      await row.getByRole('button', { name: 'Enable' }).waitFor();
      expect(await page.getByTestId('failing-endpoints').count()).toBe(0);
      expect(await endpoints()).toMatchObject([{ enabled: false }]);

      await row.getByRole('button', { name: 'Delete' }).click();
      expect(await page.getByRole('dialog').textContent()).toContain(receiver.url);
      await confirm(page);
      await page.getByText('No endpoints yet.').waitFor();
      expect(await endpoints()).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('warns at the top of the Webhooks page about an endpoint its receiver turned away with 410 Gone', async () => {
    const gone = await startReceiver('/hooks/gone', () => ({ status: 410, body: 'gone for good' }));
    try {
      await page.goto(`${base}/dashboard/apps/${appId}/webhooks`);
      await page.locator('input[name=url]').fill(gone.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByRole('button', { name: 'I have saved them' }).click();
      const row = page.locator(`tr[data-endpoint="${gone.url}"]`);
      expect(await row.locator('td').nth(1).textContent()).toBe('All events');
      await row.getByRole('button', { name: 'Send test' }).click();
      // 410 disables the endpoint: the page says so at its top as soon as the delivery is attempted.
      const warning = page.getByTestId('failing-endpoints');
      await warning.waitFor();
      expect(await warning.textContent()).toContain(gone.url);
      expect(gone.received).toHaveLength(1);
      expect((await consoleGet<Endpoint[]>(`/applications/${appId}/webhooks`)).body).toMatchObject([{ url: gone.url, enabled: false }]);
      expect(await row.getByTestId('endpoint-status').textContent()).toMatch(/^disabled.+/);
      await screenshot(page, 'webhook-failing');
      await row.getByRole('button', { name: 'Delete' }).click();
      await confirm(page);
      await page.getByText('No endpoints yet.').waitFor();
      expect(await page.getByTestId('failing-endpoints').count()).toBe(0);
    } finally {
      await gone.close();
    }
  });

  it('saves settings, and rotates the API secret: shown once, the old one refused', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/settings`);
    await page.locator('input[name=session_ttl_seconds]').fill('900');
    await page.locator('input[name=signature_window_seconds]').fill('30');
    await page.locator('input[name=anonymous_access]').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();

    await page.getByRole('button', { name: 'Rotate API secret' }).click();
    await confirm(page);
    await page.getByText('you will not see them again').waitFor();
    const rotated = (await page.locator('[data-secret=api_secret]').textContent()) ?? '';
    expect(rotated).toMatch(/^gh_/);
    expect(rotated).not.toBe(api.secret);
    await screenshot(page, 'settings-rotated');
    const stale = await integration('/sign_up', { username: 'bob', password: 'bob-password-1', hardware_id: 'hw-bob' });
    expect(stale.body['error_code']).toBe('INVALID_API_CREDENTIALS');
    api.secret = rotated;
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByRole('button', { name: 'Rotate API secret' }).waitFor();
    expect(await page.content()).not.toContain(rotated);
  });

  it('shows the response signing key to copy, and rotates it in two steps: rotate, then remove the previous key', async () => {
    type Shown = { signature_window_seconds: number; response_signing_public_key: string; response_signing_key_id: string; response_signing_previous_key_id: string | null };
    const shown = async () => (await consoleGet<Shown>(`/applications/${appId}`)).body;
    const before = await shown();
    expect(before.signature_window_seconds).toBe(30);
    await page.goto(`${base}/dashboard/apps/${appId}/settings`);
    expect(await page.locator('[data-public-key]').textContent()).toBe(before.response_signing_public_key);
    expect(await page.locator('[data-key-id]').textContent()).toBe(before.response_signing_key_id);

    await page.getByRole('button', { name: 'Rotate response signing key' }).click();
    await confirm(page);
    await page.getByRole('button', { name: 'Remove previous key' }).waitFor();
    const during = await shown();
    expect(during.response_signing_public_key).not.toBe(before.response_signing_public_key);
    expect(during.response_signing_previous_key_id).toBe(before.response_signing_key_id);
    expect(await page.locator('[data-public-key]').textContent()).toBe(during.response_signing_public_key);
    expect(await page.locator('[data-previous-key-id]').textContent()).toBe(before.response_signing_key_id);
    await screenshot(page, 'settings-signing-rotation');

    await page.getByRole('button', { name: 'Remove previous key' }).click();
    await confirm(page);
    await page.getByRole('button', { name: 'Rotate response signing key' }).waitFor();
    expect((await shown()).response_signing_previous_key_id).toBeNull();
    expect(await page.locator('[data-previous-key-id]').count()).toBe(0);
  });

  it('edits an announcement: its title, window and status show in the list, the console API and the application context', async () => {
    type Announcement = { id: string; title: string; status: string; publish_from: string; publish_until: string | null };
    const announcements = async () => (await consoleGet<Announcement[]>(`/applications/${appId}/announcements`)).body;
    // Anonymous access is on since the settings were saved: the application context needs no user.
    const shownToClients = async () => {
      const res = await integrationGet(base, api, '/app_context');
      expect(res.status).toBe(200);
      return (res.body['announcements'] as Announcement[]).map((a) => a.title);
    };
    expect(await shownToClients()).toEqual(['Version 2 is out']);
    const [created] = await announcements();

    // A window from two days ago to thirty days ahead, typed as the browser's local time; what
    // the API must then hold and the list show are worked out in the browser too.
    const day = 86_400_000;
    const localInput = (ms: number, time: string) => `${new Date(ms).toISOString().slice(0, 10)}T${time}`;
    const from = localInput(Date.now() - 2 * day, '09:30');
    const until = localInput(Date.now() + 30 * day, '18:45');
    const asIso = (local: string) => page.evaluate<string>(`new Date(${JSON.stringify(local)}).toISOString()`);
    const asShown = (iso: string) => page.evaluate<string>(`new Date(${JSON.stringify(iso)}).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })`);

    await page.goto(`${base}/dashboard/apps/${appId}/announcements`);
    await page.getByRole('row').filter({ hasText: 'Version 2 is out' }).getByRole('button', { name: 'Edit' }).click();
    await page.getByText('Edit "Version 2 is out"').waitFor();
    expect(await page.locator('input[name=title]').inputValue()).toBe('Version 2 is out');
    expect(await page.locator('select[name=status]').inputValue()).toBe('PUBLISHED');
    await page.locator('input[name=title]').fill('Version 2.1 is out');
    await page.locator('input[name=publish_from]').fill(from);
    await page.locator('input[name=publish_until]').fill(until);
    await screenshot(page, 'announcement-edit');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: 'Version 2.1 is out' });
    await row.waitFor();
    await page.getByText('New announcement').waitFor();
    const [fromIso, untilIso] = [await asIso(from), await asIso(until)];
    expect(await row.locator('td').nth(2).textContent()).toBe(await asShown(fromIso));
    expect(await row.locator('td').nth(3).textContent()).toBe(await asShown(untilIso));
    expect(await row.locator('.badge').textContent()).toBe('PUBLISHED');
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await announcements()).toMatchObject([{ id: created!.id, title: 'Version 2.1 is out', status: 'PUBLISHED', publish_from: fromIso, publish_until: untilIso }]);
    // Published and its window open: clients see it, under its new title.
    expect(await shownToClients()).toEqual(['Version 2.1 is out']);

    // Back to a draft: the list and the API say so, and clients no longer see it.
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.getByText('Edit "Version 2.1 is out"').waitFor();
    expect(await page.locator('input[name=publish_from]').inputValue()).toBe(from);
    expect(await page.locator('input[name=publish_until]').inputValue()).toBe(until);
    await page.locator('select[name=status]').selectOption('DRAFT');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => row.locator('.badge').textContent()).toBe('DRAFT');
    expect(await announcements()).toMatchObject([{ id: created!.id, title: 'Version 2.1 is out', status: 'DRAFT', publish_from: fromIso, publish_until: untilIso }]);
    expect(await shownToClients()).toEqual([]);
    // The edit form previewed the hostile content of the announcement created above.
    cspRefusalsOfThePreview();
  });

  it('uploads a file with progress, watches it reach COMPLETED, downloads and deletes it', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/files`);
    const contents = Buffer.alloc(3 * 1024 * 1024, 'gatehouse ');
    await page.locator('input[type=file]').setInputFiles({ name: 'installer.bin', mimeType: 'application/octet-stream', buffer: contents });
    expect(await page.locator('input[name=name]').inputValue()).toBe('installer.bin');
    await page.getByRole('button', { name: 'Upload' }).click();
    const row = page.locator('tr[data-file="installer.bin"]');
    await row.waitFor();
    await expect.poll(() => row.getByTestId('processing-status').textContent(), { timeout: 60_000 }).toBe('COMPLETED');
    expect(await row.textContent()).toContain('DASHBOARD');
    expect(await row.textContent()).toContain('3.0 MiB');
    await screenshot(page, 'files');

    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: 'Download' }).click()]);
    expect((await readFile(await download.path())).equals(contents)).toBe(true);

    await row.getByRole('button', { name: 'Delete' }).click();
    await confirm(page);
    await page.getByText('No files yet.').waitFor();

    // One file stays, public, for the overview's storage figure.
    await page.locator('input[type=file]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.alloc(1536, 'n') });
    await page.locator('input[name=is_public]').check();
    await page.getByRole('button', { name: 'Upload' }).click();
    const notes = page.locator('tr[data-file="notes.txt"]');
    await expect.poll(() => notes.getByTestId('processing-status').textContent(), { timeout: 60_000 }).toBe('COMPLETED');
    expect(await notes.textContent()).toContain('public');
  });

  it("replaces a file's contents, with a moving progress bar: same id, PENDING, then COMPLETED with the new bytes", async () => {
    type FileRecord = { id: string; name: string; processing_status: string; size_bytes: number | null; sha256: string | null };
    const files = async () => (await consoleGet<FileRecord[]>(`/applications/${appId}/files`)).body;
    await page.goto(`${base}/dashboard/apps/${appId}/files`);
    const first = Buffer.alloc(64 * 1024, 'first version ');
    await page.locator('input[type=file]').setInputFiles({ name: 'app.zip', mimeType: 'application/zip', buffer: first });
    await page.getByRole('button', { name: 'Upload' }).click();
    const row = page.locator('tr[data-file="app.zip"]');
    await expect.poll(() => row.getByTestId('processing-status').textContent(), { timeout: 60_000 }).toBe('COMPLETED');
    const original = (await files()).find((f) => f.name === 'app.zip')!;
    expect(original.sha256).toBe(sha256(first));

    await row.getByRole('button', { name: 'Replace' }).click();
    await page.getByText('Replace the contents of app.zip').waitFor();
    const second = randomBytes(2 * 1024 * 1024);
    await page.locator('input[type=file]').setInputFiles({ name: 'app-v2.zip', mimeType: 'application/zip', buffer: second });
    // Uploads to localhost end at once: throttled to 512 KiB/s, the 2 MiB take about four
    // seconds, and the progress bar is seen part way.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 512 * 1024 });
    try {
      const response = page.waitForResponse((r) => r.request().method() === 'PUT' && new URL(r.url()).pathname === `/api/console/applications/${appId}/files/${original.id}`);
      await page.getByRole('button', { name: 'Replace contents' }).click();
      // A function, not a string: the page's CSP refuses eval. Its body runs in the page, where
      // `document` exists (this file is compiled without the DOM's types).
      const partWay = await page.waitForFunction(() => {
        const bar = (globalThis as unknown as { document: { querySelector(s: string): { value: number; nextElementSibling: { textContent: string } } | null } }).document.querySelector(
          'progress[aria-label="Upload progress"]',
        );
        return bar !== null && bar.value > 0 && bar.value < 1 && { value: bar.value, label: bar.nextElementSibling.textContent };
      });
      const { value, label } = (await partWay.jsonValue()) as { value: number; label: string };
      expect(value).toBeGreaterThan(0);
      expect(value).toBeLessThan(1);
      expect(label).toMatch(/^\d{1,3}%$/);
      expect(Number.parseInt(label, 10)).toBeLessThanOrEqual(100);
      await screenshot(page, 'file-replace-progress');
      // The answer to the replacement: the same file, back to PENDING.
      const answer = await response;
      expect(answer.status()).toBe(200);
      expect(await answer.json()).toMatchObject({ id: original.id, name: 'app.zip', processing_status: 'PENDING' });
    } finally {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      await cdp.detach();
    }
    await page.locator('progress').waitFor({ state: 'detached' });
    await page.getByText('Upload a file').waitFor();
    await expect.poll(() => row.getByTestId('processing-status').textContent(), { timeout: 60_000 }).toBe('COMPLETED');
    expect(await row.textContent()).toContain('2.0 MiB');
    const after = (await files()).filter((f) => f.name === 'app.zip');
    expect(after).toMatchObject([{ id: original.id, processing_status: 'COMPLETED', size_bytes: second.length, sha256: sha256(second) }]);

    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: 'Download' }).click()]);
    expect(sha256(await readFile(await download.path()))).toBe(sha256(second));

    // Gone again, so the overview counts only notes.txt.
    await row.getByRole('button', { name: 'Delete' }).click();
    await confirm(page);
    await row.waitFor({ state: 'detached' });
    expect((await files()).map((f) => f.name)).toEqual(['notes.txt']);
  });

  it('shows the overview: counts and the chart of the last 30 days', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}`);
    const stats = page.getByTestId('overview-stats');
    await stats.waitFor();
    const text = (await stats.textContent()) ?? '';
    expect(text).toContain('2Users');
    expect(text).toContain('1Licenses used');
    expect(text).toContain('3Licenses unused');
    expect(text).toContain('1.5 KiBStorage used');
    expect(await page.locator('.chart rect').count()).toBe(60);
    await page.getByText('Sign-ups (2)').waitFor();
    // The license user's login and alice's, then alice's two after her device reset and her new password.
    await page.getByText('Logins (4)').waitFor();
    await screenshot(page, 'overview');
  });

  it('deletes an application from its settings, after confirmation: gone from the list and the API, its key refused', async () => {
    // An application of its own, so the other tests keep theirs.
    const doomed = await createApplication(server.t, { name: 'Retired Tool' });
    const doomedApi = { key: doomed.credentials.api_key, secret: doomed.credentials.api_secret };
    const signUp = (username: string) => integrationPost(base, doomedApi, '/sign_up', { username, password: `${username}-password-1`, hardware_id: `hw-${username}` });
    expect((await signUp('carol')).status).toBe(201);

    await page.goto(`${base}/dashboard/`);
    await page.getByRole('link', { name: /Retired Tool/ }).click();
    await page.getByTestId('overview-stats').waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Delete application' }).click();
    expect(await page.getByRole('dialog').textContent()).toContain('Delete Retired Tool?');
    await screenshot(page, 'confirm-delete-application');
    // Cancelled: nothing happens.
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await consoleGet(`/applications/${doomed.id}`)).status).toBe(200);

    await page.getByRole('button', { name: 'Delete application' }).click();
    await confirm(page);
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    await page.getByText('Acme Desktop').waitFor();
    expect(await page.getByText('Retired Tool').count()).toBe(0);
    expect((await consoleGet(`/applications/${doomed.id}`)).status).toBe(404);
    expect((await consoleGet<Array<{ name: string }>>('/applications')).body.map((a) => a.name)).toEqual(['Acme Desktop']);
    const refused = await signUp('dave');
    expect(refused.status).toBe(401);
    expect(refused.body['error_code']).toBe('INVALID_API_CREDENTIALS');
  });

  it("never shows owner A's applications to owner B", async () => {
    await createOwner(server.t.deps, OTHER.email, OTHER.password);
    const other = await openPage(browser, DESKTOP);
    try {
      // Straight to A's application, signed out: sign-in first, then back to that address,
      // where the API's 404 is said in words and nothing of A's shows.
      await other.page.goto(`${base}/dashboard/apps/${appId}/users`);
      await other.page.locator('input[name=email]').fill(OTHER.email);
      await other.page.locator('input[name=password]').fill(OTHER.password);
      await other.page.getByRole('button', { name: 'Sign in' }).click();
      await other.page.getByRole('alert').waitFor();
      expect(new URL(other.page.url()).pathname).toBe(`/dashboard/apps/${appId}/users`);
      expect(await other.page.getByRole('alert').textContent()).toMatch(/no such application/i);
      expect(await other.page.content()).not.toContain('alice');
      expect(await other.page.content()).not.toContain('Acme Desktop');
      await screenshot(other.page, 'other-owner-foreign-app');
      await other.page.getByRole('link', { name: 'All applications' }).click();
      await other.page.getByText('No applications yet').waitFor();
      expect(await other.page.content()).not.toContain('Acme Desktop');
      await screenshot(other.page, 'other-owner');
      expect(other.problems).toEqual([]);
    } finally {
      await other.context.close();
    }
  });

  it("shows the application's activity newest first: filtered, paged with Load more, an entry's changes opened, exported as NDJSON", async () => {
    /** A page of the API's, under the query's filters. */
    const audit = async (query: Record<string, string>) => (await consoleGet<AuditPage>(`/applications/${appId}/audit?${new URLSearchParams(query).toString()}`)).body;
    /** Every entry the API has under the filters, following its cursor. */
    const all = async (filters: Record<string, string> = {}) => {
      const entries: AuditEntry[] = [];
      let cursor: string | null = null;
      do {
        const page: AuditPage = await audit({ ...filters, limit: '200', ...(cursor ? { cursor } : {}) });
        entries.push(...page.entries);
        cursor = page.next_cursor;
      } while (cursor);
      return entries;
    };
    const rows = page.locator('tr[data-audit-entry]');
    const shownIds = () => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-audit-entry')));

    await page.goto(`${base}/dashboard/apps/${appId}/activity`);
    await rows.first().waitFor();
    // The first page is the API's first page of the dashboard's size (components/pager.tsx), newest first.
    const first = await audit({ limit: String(PAGE) });
    expect(await shownIds()).toEqual(first.entries.map((e) => e.id));
    const times = first.entries.map((e) => Date.parse(e.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    await screenshot(page, 'activity');
    // Action names on one line: one line box each.
    // A string, as this file is compiled without the DOM's types.
    const lineBoxes = await page.evaluate<number[]>(`[...document.querySelectorAll('tr[data-audit-entry]')].map((tr) => {
      const range = document.createRange();
      range.selectNodeContents(tr.children[1]);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    })`);
    expect(
      lineBoxes.every((n) => n === 1),
      `line boxes per action: ${lineBoxes.join(',')}`,
    ).toBe(true);

    // Load more follows the cursor until the last page: every entry, once each.
    const everything = await all();
    expect(first.next_cursor).not.toBeNull();
    while ((await page.getByRole('button', { name: 'Load more' }).count()) > 0) {
      const before = await rows.count();
      await page.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => rows.count()).toBeGreaterThan(before);
    }
    expect(await shownIds()).toEqual(everything.map((e) => e.id));

    // Users by username and licenses by code, not by id.
    const named = await audit({ limit: '200' });
    const byUser = everything.filter((e) => e.actor.type === 'end_user' && e.actor.id !== null && named.names[e.actor.id]);
    const byLicense = everything.filter((e) => e.target.type === 'license' && named.names[e.target.id]);
    expect(byUser.length).toBeGreaterThan(0);
    expect(byLicense.length).toBeGreaterThan(0);
    for (const e of [...byUser, ...byLicense]) {
      const text = (await page.locator(`tr[data-audit-entry="${e.id}"]`).textContent()) ?? '';
      if (e.actor.type === 'end_user') {
        expect(text).toContain(named.names[e.actor.id!]!);
        expect(text).not.toContain(e.actor.id!);
      }
      if (e.target.type === 'license') {
        expect(text).toContain(named.names[e.target.id]!);
        expect(text).not.toContain(e.target.id);
      }
    }
    expect(Object.values(named.names)).toContain(codes[0]);

    // Filtered by action: the two sign-ups, and nothing else.
    await page.locator('input[name=action]').fill('user.created');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')))).toEqual(['user.created', 'user.created']);
    // By actor and target type, as the API filters them.
    await page.locator('input[name=action]').fill('');
    await page.locator('select[name=actor_type]').selectOption('owner');
    await page.locator('input[name=target_type]').fill('application');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const byOwner = await all({ actor_type: 'owner', target_type: 'application' });
    expect(byOwner.length).toBeGreaterThan(0);
    await expect.poll(() => shownIds()).toEqual(byOwner.slice(0, PAGE).map((e) => e.id));

    // An entry's changes: the settings saved earlier (session TTL 300 -> 900).
    const settings = byOwner.find((e) => e.action === 'application.settings_changed' && e.changes?.['session_ttl_seconds']);
    expect(settings).toBeDefined();
    const settingsRow = page.locator(`tr[data-audit-entry="${settings!.id}"]`);
    await settingsRow.getByRole('button', { name: 'Details' }).click();
    const details = page.locator(`#audit-${settings!.id}`);
    const ttl = details.locator('table.changes tbody tr', { hasText: 'session_ttl_seconds' });
    await ttl.waitFor();
    expect(await ttl.locator('td').allTextContents()).toEqual(['session_ttl_seconds', '300', '900']);
    await screenshot(page, 'activity-details');

    // A date range with nothing in it.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.locator('input[name=since]').fill('2000-01-01T00:00');
    await page.locator('input[name=until]').fill('2000-01-02T00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No entries match.').waitFor();

    // Export: the whole log as NDJSON, one entry a line, the same entries as the API's pages.
    await page.getByRole('button', { name: 'Clear' }).click();
    await rows.first().waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export' }).click()]);
    const lines = (await readFile(await download.path(), 'utf8')).trim().split('\n');
    const exported = lines.map((line) => JSON.parse(line) as AuditEntry);
    expect(exported.map((e) => e.id)).toEqual((await all()).map((e) => e.id));
  });

  it("shows a user's history on their page: the audit entries about them, newest first", async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/users`);
    await page.getByRole('link', { name: 'alice' }).click();
    await page.getByRole('heading', { name: 'alice' }).waitFor();
    const userId = new URL(page.url()).pathname.split('/').pop()!;
    const history = page.locator('section.card', { has: page.getByRole('heading', { name: 'History', exact: true }) });
    const rows = history.locator('tr[data-audit-entry]');
    await rows.first().waitFor();
    const expected = (await consoleGet<AuditPage>(`/applications/${appId}/audit?target_type=user&target_id=${userId}&limit=${PAGE}`)).body;
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-audit-entry')))).toEqual(expected.entries.map((e) => e.id));
    expect(expected.entries.every((e) => e.target.type === 'user' && e.target.id === userId)).toBe(true);
    // Her sign-up is the oldest, her timeout among them.
    const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));
    if (expected.next_cursor === null) expect(actions[actions.length - 1]).toBe('user.created');
    expect(actions).toContain('user.timed_out');
    await screenshot(page, 'user-history');
  });

  it('keeps plans: made, refused with a reason, edited, archived and deleted', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/plans`);
    await page.getByText('No plans yet.').waitFor();
    await page.locator('input[name=name]').fill('Pro');
    await page.locator('input[name=duration]').fill('30');
    await page.locator('input[name=entitlements]').fill('export, beta_channel');
    await page.locator('input[name=max_devices]').fill('3');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('cell', { name: 'beta_channel, export' }).waitFor();
    type Shown = { id: string; name: string; kind: string; duration_minutes: number | null; entitlements: string[]; max_devices: number | null; seats: number; archived: boolean };
    const [pro] = (await consoleGet<Shown[]>(`/applications/${appId}/plans`)).body;
    expect(pro).toMatchObject({ name: 'Pro', kind: 'base', duration_minutes: 30 * 1440, entitlements: ['beta_channel', 'export'], max_devices: 3, seats: 1, archived: false });

    // The form starts again from the defaults; a code the spec does not allow: the API's refusal,
    // in words, and nothing made.
    expect(await page.locator('input[name=entitlements]').inputValue()).toBe('');
    expect(await page.locator('input[name=max_devices]').inputValue()).toBe('');
    await page.locator('input[name=name]').fill('Team');
    await page.locator('input[name=entitlements]').fill('Export!');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Entitlements');
    expect((await consoleGet<Shown[]>(`/applications/${appId}/plans`)).body).toHaveLength(1);

    // A lifetime add-on with five seats.
    await page.locator('input[name=entitlements]').fill('dlc_winter');
    await page.locator('select[name=kind]').selectOption('add_on');
    await page.locator('input[name=lifetime]').check();
    await page.locator('input[name=seats]').fill('5');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('cell', { name: 'dlc_winter' }).waitFor();
    const team = (await consoleGet<Shown[]>(`/applications/${appId}/plans`)).body.find((p) => p.name === 'Team');
    expect(team).toMatchObject({ kind: 'add_on', duration_minutes: null, entitlements: ['dlc_winter'], seats: 5 });
    await screenshot(page, 'plans');

    // Edited: the form holds the plan as it is; what changes is saved.
    await page.getByRole('row', { name: /Pro/ }).getByRole('button', { name: 'Edit' }).click();
    expect(await page.locator('input[name=duration]').inputValue()).toBe('30');
    expect(await page.locator('select[name=duration_unit]').inputValue()).toBe('days');
    await page.locator('input[name=entitlements]').fill('export, beta_channel, priority_support');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'beta_channel, export, priority_support' }).waitFor();

    // Archived (no new licenses of it), restored, then deleted.
    await page.getByRole('row', { name: /Pro/ }).getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('row', { name: /Pro/ }).getByText('archived').waitFor();
    expect((await consoleGet<Shown>(`/applications/${appId}/plans/${pro!.id}`)).body.archived).toBe(true);
    await page.getByRole('row', { name: /Pro/ }).getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('row', { name: /Pro/ }).getByRole('button', { name: 'Archive' }).waitFor();
    await page.getByRole('row', { name: /Team/ }).getByRole('button', { name: 'Delete' }).click();
    await confirm(page);
    await page.getByRole('cell', { name: 'dlc_winter' }).waitFor({ state: 'detached' });
    expect((await consoleGet<Shown[]>(`/applications/${appId}/plans`)).body.map((p) => p.name)).toEqual(['Pro']);
  });

  it('makes licenses of a plan, shows who holds its seats, and releases one', async () => {
    const made = await server.t.inject({
      method: 'POST',
      url: `/api/console/applications/${appId}/plans`,
      headers: { authorization: `Bearer ${server.t.ownerToken}` },
      payload: { name: 'Studio', kind: 'base', duration_minutes: 7 * 1440, entitlements: ['render_4k'], seats: 3 },
    });
    expect(made.statusCode).toBe(201);
    const studio = made.json<{ id: string }>();

    // One code of the plan, made on the page: the form offers the plan instead of a duration.
    await page.goto(`${base}/dashboard/apps/${appId}/licenses`);
    await page.locator('input[name=count]').fill('1');
    await page.locator('select[name=plan]').selectOption(studio.id);
    expect(await page.locator('input[name=amount]').count()).toBe(0);
    await page.getByRole('button', { name: 'Generate' }).click();
    const code = (await page.getByTestId('new-licenses').textContent())!.trim();
    type Listed = { id: string; code: string; plan_id: string | null; minutes: number | null; seats: number; redemptions: number };
    const listed = (await consoleGet<Listed[]>(`/applications/${appId}/licenses`)).body.find((l) => l.code === code)!;
    expect(listed).toMatchObject({ plan_id: studio.id, minutes: null, seats: 3, redemptions: 0 });

    // Two members redeem it; the list says so and names them.
    for (const name of ['seat_one', 'seat_two']) {
      const password = `${name}-password-1`;
      expect((await integration('/sign_up', { username: name, password, hardware_id: `hw-${name}` })).status).toBe(201);
      expect((await integration('/activate_license', { code, username: name, password, hardware_id: `hw-${name}` })).status).toBe(200);
    }
    await page.reload();
    const row = page.getByRole('row', { name: new RegExp(code) });
    await row.getByText('2 of 3 seats').waitFor();
    await row.getByText('Studio').waitFor();
    await row.getByRole('button', { name: 'Seats' }).click();
    await page.getByRole('link', { name: 'seat_two' }).waitFor();
    await screenshot(page, 'license-seats');

    // Releasing a seat takes back what it granted: the plan and its week.
    type Seat = { user_id: string; username: string | null };
    const seatsPath = `/applications/${appId}/licenses/${listed.id}/redemptions`;
    const seatOne = (await consoleGet<Seat[]>(seatsPath)).body.find((r) => r.username === 'seat_one');
    await page
      .getByRole('row', { name: /seat_one/ })
      .getByRole('button', { name: 'Release' })
      .click();
    await confirm(page);
    await page.getByRole('link', { name: 'seat_one' }).waitFor({ state: 'detached' });
    await page
      .getByRole('row', { name: new RegExp(code) })
      .getByText('1 of 3 seats')
      .waitFor();
    expect((await consoleGet<Seat[]>(seatsPath)).body.map((r) => r.username)).toEqual(['seat_two']);
    type Page = { membership: { is_active: boolean } };
    expect((await consoleGet<Page>(`/applications/${appId}/users/${seatOne!.user_id}`)).body.membership.is_active).toBe(false);
    const login = await integration('/auth/login', { credentials: { username: 'seat_one', password: 'seat_one-password-1' }, hardware_id: 'hw-seat_one' });
    expect(login).toMatchObject({ status: 403, body: { error_code: 'MEMBERSHIP_INACTIVE' } });

    // The holder left: the plan and its entitlements on the user's page, and a direct grant added.
    await page.getByRole('link', { name: 'seat_two' }).click();
    await page.getByTestId('plan').getByText('Studio').waitFor();
    expect(await page.getByTestId('entitlements').textContent()).toBe('render_4k');
    await page.locator('input[name=direct_entitlements]').fill('beta_access');
    await page.getByRole('button', { name: 'Save entitlements' }).click();
    await expect.poll(() => page.getByTestId('entitlements').textContent()).toBe('beta_access, render_4k');
    await screenshot(page, 'user-plan');
    const seatTwo = (await consoleGet<Seat[]>(seatsPath)).body[0]!;
    type Held = { membership: { plan: { name: string } | null; entitlements: string[] }; direct_entitlements: string[] };
    expect((await consoleGet<Held>(`/applications/${appId}/users/${seatTwo.user_id}`)).body).toMatchObject({
      membership: { plan: { name: 'Studio' }, entitlements: ['beta_access', 'render_4k'] },
      direct_entitlements: ['beta_access'],
    });
  });

  it('names a trial plan in the settings, from the base plans with trial on, and clears it', async () => {
    const made = await server.t.inject({
      method: 'POST',
      url: `/api/console/applications/${appId}/plans`,
      headers: { authorization: `Bearer ${server.t.ownerToken}` },
      payload: { name: 'Tryout', kind: 'base', duration_minutes: 10080, trial: true },
    });
    expect(made.statusCode, made.body).toBe(201);
    await page.goto(`${base}/dashboard/apps/${appId}/settings`);
    // Pro has no trial: only Tryout is offered.
    await page.locator('select[name=trial_plan_id] option', { hasText: 'Tryout' }).waitFor({ state: 'attached' });
    expect(await page.locator('select[name=trial_plan_id] option').allTextContents()).toEqual(['No trial', 'Tryout']);
    await page.locator('select[name=trial_plan_id]').selectOption({ label: 'Tryout' });
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect((await consoleGet<{ trial_plan_id: string | null }>(`/applications/${appId}`)).body.trial_plan_id).toBe(made.json().id);
    await page.locator('select[name=trial_plan_id]').selectOption({ label: 'No trial' });
    await page.getByRole('button', { name: 'Save settings' }).click();
    // The banner of the first save may still show: wait for the stored setting itself.
    await expect.poll(async () => (await consoleGet<{ trial_plan_id: string | null }>(`/applications/${appId}`)).body.trial_plan_id).toBeNull();
  });

  it('fits every main page at 1280x800 and 390x844 without horizontal scrolling', async () => {
    const pages: Array<[string, string]> = [
      ['applications', ''],
      ['new-application', '/apps/new'],
      ['overview', `/apps/${appId}`],
      ['users', `/apps/${appId}/users`],
      ['plans', `/apps/${appId}/plans`],
      ['licenses', `/apps/${appId}/licenses`],
      ['files', `/apps/${appId}/files`],
      ['announcements', `/apps/${appId}/announcements`],
      ['variables', `/apps/${appId}/variables`],
      ['bans', `/apps/${appId}/bans`],
      ['webhooks', `/apps/${appId}/webhooks`],
      ['activity', `/apps/${appId}/activity`],
      ['settings', `/apps/${appId}/settings`],
    ];
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      for (const [name, path] of pages) {
        await page.goto(`${base}/dashboard${path}`);
        await page.locator('main h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        const fit = await horizontalFit(page);
        expect(fit.scrollWidth, `${name} at ${viewport.width}x${viewport.height}`).toBeLessThanOrEqual(fit.clientWidth);
        if (viewport === PHONE) await screenshot(page, name);
      }
    }
    // The phone's menu opens the application's nav.
    await page.goto(`${base}/dashboard/apps/${appId}/users`);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Files' }).waitFor();
    await screenshot(page, 'phone-menu');
    await page.setViewportSize(DESKTOP);
  });

  it('brings back the sign-in page when the session ends elsewhere, then the page that was asked for', async () => {
    await page.goto(`${base}/dashboard/apps/${appId}/bans`);
    // The page's own requests are done before the session ends (or one of them would meet the 401).
    await page.getByText('No bans.').waitFor();
    const cookie = (await context.cookies(`${base}/api/console/session`)).find((c) => c.name === 'gh_console');
    const revoked = await fetch(`${base}/api/console/logout`, { method: 'POST', headers: { authorization: `Bearer ${cookie!.value}` } });
    expect(revoked.status).toBe(204);
    await page.getByRole('link', { name: 'Variables' }).click();
    await page.locator('input[name=email]').waitFor();
    await page.locator('input[name=email]').fill(OWNER.email);
    await page.locator('input[name=password]').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('cell', { name: 'latest_version' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/apps/${appId}/variables`);
  });

  it('signs out: the cookie is cleared and its token refused; no request lacked the CSRF token, nothing broke the CSP', async () => {
    await page.goto(`${base}/dashboard/`);
    const cookie = (await context.cookies(`${base}/api/console/session`)).find((c) => c.name === 'gh_console');
    expect(cookie).toBeDefined();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('input[name=email]').waitFor();
    expect((await context.cookies(`${base}/api/console/session`)).find((c) => c.name === 'gh_console')).toBeUndefined();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/dashboard/signin');
    const replayed = await fetch(`${base}/api/console/session`, { headers: { cookie: `gh_console=${cookie!.value}` } });
    expect(replayed.status).toBe(401);
    expect(problems).toEqual([]);
  });
});
