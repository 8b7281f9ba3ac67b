// Acceptance (issue 7, point 3; issue 13, points 1 and 2; issue 20, point 4): the examples of the
// README and docs/ are read from the pages (README.md, docs/*.md) and run as written against real
// servers. The two pipeline snippets of docs/cli.md (the GitHub Actions step and the plain shell
// step) run from a scratch project that has the package installed (its package.json and the
// compiled build, as `npm install` lays them out). The README's walkthrough ("First owner and
// first application") runs block by block in one shell, in a checkout with a server started
// there, and then the SDK example of docs/sdk.md as a reader continues: a new project beside the
// checkout, the package installed with npm, the program saved under the page's file name and run
// with the page's command.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseServerEnv, killServer, repoRoot, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { docsPages } from '../support/docs-pages.js';
import { startLiveServer, type AppCredentials, type LiveServer } from './live-server.js';

const pages = docsPages();
const readme = (pages.find((page) => page.path === 'README.md') as { text: string }).text;
/** README.md and every page of docs/, one after another: where the marked snippets live. */
const docs = pages.map((page) => page.text).join('\n');

/** The fenced block right after `<!-- readme-test: name -->`. */
function markedBlock(markdown: string, name: string): { lang: string; code: string } {
  const m = new RegExp(`<!-- readme-test: ${name} -->\\s*\\n\`\`\`(\\w*)\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(markdown);
  if (m === null) throw new Error(`README.md and docs/ have no fenced block marked readme-test: ${name}`);
  return { lang: m[1] as string, code: m[2] as string };
}

/** The `env:` keys and the `run: |` script of a one-step GitHub Actions snippet. */
function actionsStep(yaml: string): { env: string[]; run: string } {
  const lines = yaml.split('\n');
  const indent = (line: string) => line.length - line.trimStart().length;
  const blockAfter = (pattern: RegExp) => {
    const at = lines.findIndex((l) => pattern.test(l));
    if (at < 0) throw new Error(`no ${pattern} in the Actions snippet`);
    const body: string[] = [];
    for (const line of lines.slice(at + 1)) {
      if (line.trim() !== '' && indent(line) <= indent(lines[at] as string)) break;
      body.push(line);
    }
    const depth = Math.min(...body.filter((l) => l.trim() !== '').map(indent));
    return body.map((l) => l.slice(depth));
  };
  return {
    env: blockAfter(/^\s*env:\s*$/)
      .map((l) => l.split(':')[0] as string)
      .filter(Boolean),
    run: blockAfter(/^\s*run: \|\s*$/).join('\n'),
  };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function exec(file: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env: baseServerEnv(env), timeout: 120_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

let live: LiveServer;
let app: AppCredentials;
let project: string;
const build = randomBytes(2 * 1024 * 1024 + 77);

beforeAll(async () => {
  live = await startLiveServer('gatehouse-readme');
  app = await live.createApp({ name: 'My App' });
  // A client project with the package installed: node_modules/gatehouse holds the package.json
  // (exports, bin) and the compiled dist/; npm would link the bin into node_modules/.bin.
  project = mkdtempSync(join(tmpdir(), 'gatehouse-readme-project-'));
  const pkg = join(project, 'node_modules', 'gatehouse');
  mkdirSync(pkg, { recursive: true });
  mkdirSync(join(project, 'node_modules', '.bin'));
  copyFileSync(join(repoRoot, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(live.build.outDir, join(pkg, 'dist'), 'dir');
  const bin = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: { gatehouse: string } }).bin.gatehouse;
  chmodSync(join(pkg, bin), 0o755);
  symlinkSync(join('..', 'gatehouse', bin), join(project, 'node_modules', '.bin', 'gatehouse'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'vendor-app', private: true, type: 'module', devDependencies: { gatehouse: '*' } }));
  mkdirSync(join(project, 'dist'));
  writeFileSync(join(project, 'dist', 'app.zip'), build);
}, 180_000);

afterAll(async () => {
  await live?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

const ciEnv = () => ({ GATEHOUSE_URL: live.base, GATEHOUSE_ADMIN_API_KEY: app.admin_api_key, GATEHOUSE_FILES_ENCRYPTION_KEY: app.files_encryption_key });

describe('the pipeline snippets (docs/cli.md)', () => {
  it('the GitHub Actions step publishes the build and waits for it', async () => {
    const step = actionsStep(markedBlock(docs, 'github-actions').code);
    // The variables the step passes are the ones the CLI reads.
    expect(step.env.sort()).toEqual(['GATEHOUSE_ADMIN_API_KEY', 'GATEHOUSE_URL']);
    const run = await exec('bash', ['-e', '-c', step.run], project, { GATEHOUSE_URL: live.base, GATEHOUSE_ADMIN_API_KEY: app.admin_api_key });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pushed app\.zip \(id [0-9a-f-]{36}\): COMPLETED, \d+ bytes, encrypted$/m);
    expect(run.stdout).toMatch(/COMPLETED\s+\d+\s+yes\s+no\s+app\.zip/);
  }, 120_000);

  it('the plain shell step pushes again, pulls and compares', async () => {
    const block = markedBlock(docs, 'shell');
    expect(block.lang).toBe('sh');
    const run = await exec('sh', ['-c', block.code], project, ciEnv());
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, 'pushed.json'), 'utf8'))).toMatchObject({ name: 'app.zip', processing_status: 'COMPLETED', store_encrypted: true });
    expect(readFileSync(join(project, 'downloaded.zip')).equals(build)).toBe(true);
  }, 120_000);
});

/** The text of the section under `## heading`, up to the next `## `. */
function section(markdown: string, heading: string): string {
  const at = markdown.indexOf(`\n## ${heading}\n`);
  if (at < 0) throw new Error(`README.md has no section ${heading}`);
  const end = markdown.indexOf('\n## ', at + 1);
  return markdown.slice(at, end < 0 ? undefined : end);
}

/** Every ```sh block of a text, in order. */
const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)\n```\n/g)].map((m) => m[1] as string);

/** The first unlabelled fenced block after `<!-- readme-test: name -->`'s block: its printed output. */
function printedOutputAfter(markdown: string, name: string): string {
  const at = markdown.indexOf(`<!-- readme-test: ${name} -->`);
  const m = /```\w*\n[\s\S]*?\n```\n\s*```\n([\s\S]*?)\n```\n/.exec(markdown.slice(at));
  if (at < 0 || m === null) throw new Error(`no printed output after readme-test: ${name}`);
  return `${m[1]}\n`;
}

describe('the README walkthrough, then the SDK example (docs/sdk.md) in a new project', () => {
  let server: ServerProcess | null = null;
  let parent = '';
  afterAll(async () => {
    await killServer(server);
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  it('runs as printed, in order, from a checkout with a server started there', async () => {
    // The checkout as a reader has it after `npm install`: the package.json (its `gatehouse`
    // script; the build scripts left out, the build being done) and dist/.
    parent = mkdtempSync(join(tmpdir(), 'gatehouse-readme-reader-'));
    const checkout = join(parent, 'gatehouse');
    mkdirSync(checkout);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    pkg.scripts = { gatehouse: pkg.scripts['gatehouse'] as string };
    writeFileSync(join(checkout, 'package.json'), JSON.stringify(pkg, null, 2));
    symlinkSync(live.build.outDir, join(checkout, 'dist'), 'dir');

    // `npm start` there: no GATEHOUSE_DATA_DIR, so ./data of the checkout, as the CLI will use.
    const env = baseServerEnv({ LOG_LEVEL: 'warn' });
    delete env['GATEHOUSE_DATA_DIR'];
    server = await startServerProcess(live.build.outDir, env, 20_000, checkout);
    expect(server.output.join('')).toContain(`No owner yet. Create the first one (in the checkout; it asks for a password): GATEHOUSE_DATA_DIR=${join(checkout, 'data')} npm run`);

    const walkthrough = shellBlocks(section(readme, 'First owner and first application'));
    expect(walkthrough.length).toBeGreaterThanOrEqual(12);
    expect(walkthrough[0]).toBe('GH=http://127.0.0.1:8080');
    const steps = [`GH=${server.base}`, ...walkthrough.slice(1)];
    const setup = markedBlock(docs, 'sdk-setup');
    const example = markedBlock(docs, 'sdk-example');
    const runExample = markedBlock(docs, 'sdk-run');
    expect([setup.lang, example.lang, runExample.lang]).toEqual(['sh', 'js', 'sh']);
    const fileName = /Save the program below as `([^`]+)`/.exec(docs)?.[1];
    expect(fileName).toBe('example.mjs');
    const script = [
      'set -eo pipefail',
      ...steps.map((code, i) => `echo '@@step ${i}'\n${code}`),
      `echo '@@setup'\n${setup.code}`,
      // The reader saves the program in the new project.
      `cat > ${fileName} <<'GATEHOUSE_README_EXAMPLE'\n${example.code}\nGATEHOUSE_README_EXAMPLE`,
      `echo '@@run'\n${runExample.code}`,
      `echo '@@credentials'\necho "$API_KEY $API_SECRET"`,
    ].join('\n');
    const run = await exec('bash', ['-c', script], checkout, env as Record<string, string>);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const out = Object.fromEntries(
      run.stdout
        .split(/^@@/m)
        .filter(Boolean)
        .map((part) => {
          const nl = part.indexOf('\n');
          return [part.slice(0, nl), part.slice(nl + 1)];
        }),
    );

    expect(JSON.parse(out['step 1'] as string)).toMatchObject({ owner: { email: 'you@example.com' } });
    expect(JSON.parse(out['step 5'] as string)).toMatchObject({ username: expect.stringMatching(/^user-/), membership: { is_active: true } });
    expect(out['step 7']).toContain('{"name":"latest_version","value":"1.4.2"}');
    expect(JSON.parse((out['step 8'] as string).trim().split('\n').at(-1) as string)).toHaveProperty('session_token');
    // Step 11: waited until stored, then the download.
    expect(out[`step ${steps.length - 2}`]).toBe('COMPLETED\nrelease notes for 1.4.2\n');
    expect(out[`step ${steps.length - 1}`]).toMatch(/^HTTP\/1\.1 204/);

    // The SDK example prints what docs/sdk.md shows, and leaves the file in the project.
    expect(out['run']).toBe(printedOutputAfter(docs, 'sdk-run'));
    const client = join(parent, 'my-client');
    expect(readFileSync(join(client, 'notes.txt'), 'utf8')).toBe('release notes for 1.4.2\n');

    // Its error branch: a user without a membership yet.
    const [apiKey, apiSecret] = (out['credentials'] as string).trim().split(' ') as [string, string];
    const signUp = await fetch(`${server.base}/api/integration/sign_up`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'x-api-secret': apiSecret, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bob', password: 'bob-password-1', hardware_id: 'machine-2' }),
    });
    expect(signUp.status).toBe(201);
    const inactive = await exec(process.execPath, [fileName as string], client, {
      GATEHOUSE_URL: server.base,
      GATEHOUSE_API_KEY: apiKey,
      GATEHOUSE_API_SECRET: apiSecret,
      APP_USERNAME: 'bob',
      APP_PASSWORD: 'bob-password-1',
    });
    expect(inactive.code).toBe(1);
    expect(inactive.stderr.trim()).toBe('No active membership: activate a license first.');
  }, 180_000);
});

describe('the examples of the end-user features (docs/api.md)', () => {
  it('user variables, license lookup, device reset, plans, licenses of a plan and password change run as printed', async () => {
    const feature = await live.createApp({ name: 'My App', device_auth: false });
    const [, code2] = (await live.licenses(feature.id, 2, 43200)) as [string, string];
    const headers = { 'x-api-key': feature.api_key, 'x-api-secret': feature.api_secret, 'content-type': 'application/json' };
    const post = (path: string, body: unknown) => fetch(`${live.base}/api/integration${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    // Alice as the walkthrough leaves her: a password user with the second license, logged in.
    const alice = (await (await post('/sign_up', { username: 'alice', password: 'alice-password-1' })).json()) as { id: string };
    expect((await post('/activate_license', { code: code2, username: 'alice', password: 'alice-password-1' })).status).toBe(200);
    const login = (await (await post('/auth/login', { credentials: { username: 'alice', password: 'alice-password-1' } })).json()) as { session_token: string };
    const env = {
      GH: live.base,
      APP_ID: feature.id,
      API_KEY: feature.api_key,
      API_SECRET: feature.api_secret,
      ADMIN_API_KEY: feature.admin_api_key,
      CONSOLE_TOKEN: live.ownerAuth.slice('Bearer '.length),
      SESSION_TOKEN: login.session_token,
      CODE2: code2,
      USER_ID: alice.id,
    };
    const runBlock = async (name: string) => {
      const block = markedBlock(docs, name);
      expect(block.lang).toBe('sh');
      const run = await exec('bash', ['-e', '-o', 'pipefail', '-c', block.code], project, env);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      return run.stdout.trimEnd().split('\n');
    };

    const variables = await runBlock('user-variables');
    expect(JSON.parse(variables[0] as string)).toMatchObject({ name: 'save_slot', value: 'level-3' });
    expect(JSON.parse(variables[1] as string)).toEqual([expect.objectContaining({ name: 'save_slot', value: 'level-3' })]);
    expect(variables[2]).toBe('204');

    const [license] = await runBlock('license-lookup');
    expect(JSON.parse(license as string)).toMatchObject({ application_id: feature.id, code: code2, minutes: 43200, used_by_user_id: alice.id, banned: false, is_credentials_license: false });

    const reset = await runBlock('reset-devices');
    expect(reset[0]).toBe('24');
    expect(Date.parse(JSON.parse(reset[1] as string).next_reset_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(reset[2]).toMatch(/^HTTP\/1\.1 429/);
    expect(reset[3]).toMatch(/^retry-after: \d+\r?$/i);
    expect(JSON.parse(reset[4] as string)).toMatchObject({ error_code: 'RESET_COOLDOWN', next_reset_at: JSON.parse(reset[1] as string).next_reset_at });

    const [plan, plans] = await runBlock('plans');
    const pro = { name: 'Pro', kind: 'base', duration_minutes: 43200, entitlements: ['beta', 'export'], max_devices: null, seats: 1, grace_minutes: 4320, trial: false, archived: false };
    expect(JSON.parse(plan as string)).toMatchObject(pro);
    expect(JSON.parse(plans as string)).toEqual([JSON.parse(plan as string)]);

    const [granted, seen] = await runBlock('entitlements');
    expect(JSON.parse(granted as string)).toMatchObject({ user_id: alice.id, is_active: true, plan: null, entitlements: ['beta', 'export'], in_grace: false, grace_ends_at: null });
    expect(JSON.parse(seen as string)).toEqual(['beta', 'export']);

    const [teamLicense, redeemed, seats, released] = await runBlock('plan-licenses');
    const team = JSON.parse(teamLicense as string);
    expect(team).toMatchObject({ minutes: null, seats: 5, redemptions: 0, plan_id: expect.any(String) });
    expect(JSON.parse(redeemed as string)).toMatchObject({ type: 'license', minutes: 43200, license_id: team.id, plan_from: null, plan_to: team.plan_id });
    expect(JSON.parse(seats as string)).toEqual([{ user_id: alice.id, username: 'alice', redeemed_at: expect.any(String) }]);
    expect(released).toBe('204');

    const [named, trial, again] = await runBlock('start-trial');
    expect(JSON.parse(named as string)).toEqual({ trial_plan_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(JSON.parse(trial as string)).toMatchObject({ username: 'carol', membership: { is_active: true, is_lifetime: false } });
    expect(Date.parse(JSON.parse(trial as string).membership.active_until) - Date.now()).toBeGreaterThan(13 * 24 * 3600_000);
    expect(JSON.parse(again as string)).toMatchObject({ error_code: 'TRIAL_USED' });

    expect(await runBlock('change-password')).toEqual(['204']);
    expect((await post('/auth/login', { credentials: { username: 'alice', password: 'alice-password-2' } })).status).toBe(200);
    expect((await post('/auth/login', { credentials: { username: 'alice', password: 'alice-password-1' } })).status).toBe(401);
  }, 120_000);
});
