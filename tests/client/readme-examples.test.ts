// Acceptance (issue 7, point 3): the README's SDK example and its two pipeline snippets (the
// GitHub Actions step and the plain shell step) are read from README.md and run as written
// against a real server, from a scratch project that has the package installed (its package.json
// and the compiled build, as `npm install` of the package would lay them out): `gatehouse/client`
// resolves through the package's exports and `npx gatehouse` through its bin.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseServerEnv, repoRoot } from '../support/server-process.js';
import { startLiveServer, type AppCredentials, type LiveServer } from './live-server.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The fenced block right after `<!-- readme-test: name -->`. */
function markedBlock(markdown: string, name: string): { lang: string; code: string } {
  const m = new RegExp(`<!-- readme-test: ${name} -->\\s*\\n\`\`\`(\\w*)\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(markdown);
  if (m === null) throw new Error(`README.md has no fenced block marked readme-test: ${name}`);
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
    env: blockAfter(/^\s*env:\s*$/).map((l) => l.split(':')[0] as string).filter(Boolean),
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

describe('README pipeline snippets', () => {
  it('the GitHub Actions step publishes the build and waits for it', async () => {
    const step = actionsStep(markedBlock(readme, 'github-actions').code);
    // The variables the step passes are the ones the CLI reads.
    expect(step.env.sort()).toEqual(['GATEHOUSE_ADMIN_API_KEY', 'GATEHOUSE_URL']);
    const run = await exec('bash', ['-e', '-c', step.run], project, { GATEHOUSE_URL: live.base, GATEHOUSE_ADMIN_API_KEY: app.admin_api_key });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pushed app\.zip \(id [0-9a-f-]{36}\): COMPLETED, \d+ bytes, encrypted$/m);
    expect(run.stdout).toMatch(/COMPLETED\s+\d+\s+yes\s+no\s+app\.zip/);
  }, 120_000);

  it('the plain shell step pushes again, pulls and compares', async () => {
    const block = markedBlock(readme, 'shell');
    expect(block.lang).toBe('sh');
    const run = await exec('sh', ['-c', block.code], project, ciEnv());
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, 'pushed.json'), 'utf8'))).toMatchObject({ name: 'app.zip', processing_status: 'COMPLETED', store_encrypted: true });
    expect(readFileSync(join(project, 'downloaded.zip')).equals(build)).toBe(true);
  }, 120_000);
});

describe('README SDK example', () => {
  it('logs in, reads the context, downloads and decrypts app.zip, logs out', async () => {
    expect((await live.console('PUT', `/applications/${app.id}/variables/latest_version`, { value: '1.4.2', is_public: true })).status).toBe(200);
    const headers = { 'x-api-key': app.api_key, 'x-api-secret': app.api_secret, 'content-type': 'application/json' };
    const signUp = await fetch(`${live.base}/api/integration/sign_up`, { method: 'POST', headers, body: JSON.stringify({ username: 'alice', password: 'alice-password-1', hardware_id: 'machine-1' }) });
    expect(signUp.status).toBe(201);
    const env = { GATEHOUSE_URL: live.base, GATEHOUSE_API_KEY: app.api_key, GATEHOUSE_API_SECRET: app.api_secret, GATEHOUSE_FILES_ENCRYPTION_KEY: app.files_encryption_key, APP_USERNAME: 'alice', APP_PASSWORD: 'alice-password-1' };
    const block = markedBlock(readme, 'sdk-example');
    expect(block.lang).toBe('js');
    writeFileSync(join(project, 'example.mjs'), block.code);
    rmSync(join(project, 'app.zip'), { force: true });

    // No membership yet: the example's own error branch.
    const inactive = await exec(process.execPath, ['example.mjs'], project, env);
    expect(inactive.code).toBe(1);
    expect(inactive.stderr.trim()).toBe('No active membership: activate a license first.');

    const [code] = await live.licenses(app.id, 1, 600);
    const activated = await fetch(`${live.base}/api/integration/activate_license`, { method: 'POST', headers, body: JSON.stringify({ code, username: 'alice', password: 'alice-password-1', hardware_id: 'machine-1' }) });
    expect(activated.status).toBe(200);
    const run = await exec(process.execPath, ['example.mjs'], project, env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Hello alice: 9 hours left\nlatest_version = 1.4.2\nDownloaded app.zip\n');
    expect(readFileSync(join(project, 'app.zip')).equals(build)).toBe(true);
  }, 60_000);
});
