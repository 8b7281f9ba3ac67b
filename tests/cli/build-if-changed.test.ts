// `npm start` builds only when the sources changed (scripts/build-if-changed.mjs, issue 13): run
// in a scratch project whose `build` script only counts its runs and makes the outputs.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { repoRoot } from '../support/server-process.js';

const project = mkdtempSync(join(tmpdir(), 'gatehouse-build-stamp-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const fakeBuild = `
const fs = require('node:fs');
for (const dir of ['dist/src', 'dist/dashboard']) fs.mkdirSync(dir, { recursive: true });
for (const file of ['dist/src/main.js', 'dist/src/cli.js', 'dist/dashboard/index.html']) fs.writeFileSync(file, '');
fs.appendFileSync('builds.log', 'built\\n');
`;

function start(): string {
  return execFileSync(process.execPath, ['scripts/build-if-changed.mjs'], { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
const builds = () => readFileSync(join(project, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;

it('builds on the first start, not again until a source changes or an output is missing', () => {
  mkdirSync(join(project, 'scripts'));
  mkdirSync(join(project, 'src', 'deep'), { recursive: true });
  copyFileSync(join(repoRoot, 'scripts', 'build-if-changed.mjs'), join(project, 'scripts', 'build-if-changed.mjs'));
  writeFileSync(join(project, 'fake-build.cjs'), fakeBuild);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'stamp-test', private: true, scripts: { build: 'node fake-build.cjs && node scripts/build-if-changed.mjs --stamp' } }));
  writeFileSync(join(project, 'src', 'deep', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(project, 'builds.log'), '');

  start();
  expect(builds()).toBe(1);
  start();
  expect(builds()).toBe(1);
  // A newer modification time alone (a checkout, a touch) is not a change.
  utimesSync(join(project, 'src', 'deep', 'a.ts'), new Date(), new Date(Date.now() + 60_000));
  start();
  expect(builds()).toBe(1);
  writeFileSync(join(project, 'src', 'deep', 'a.ts'), 'export const a = 2;\n');
  start();
  expect(builds()).toBe(2);
  writeFileSync(join(project, 'src', 'b.ts'), 'export const b = 1;\n');
  start();
  expect(builds()).toBe(3);
  rmSync(join(project, 'dist', 'dashboard', 'index.html'));
  start();
  expect(builds()).toBe(4);
  start();
  expect(builds()).toBe(4);
}, 60_000);

it('installing the checkout into a client project (docs/sdk.md) does not rebuild a fresh build under a running server', () => {
  const checkout = mkdtempSync(join(tmpdir(), 'gatehouse-sdk-checkout-'));
  const client = mkdtempSync(join(tmpdir(), 'gatehouse-sdk-client-'));
  try {
    mkdirSync(join(checkout, 'scripts'));
    mkdirSync(join(checkout, 'src'));
    copyFileSync(join(repoRoot, 'scripts', 'build-if-changed.mjs'), join(checkout, 'scripts', 'build-if-changed.mjs'));
    writeFileSync(join(checkout, 'fake-build.cjs'), fakeBuild);
    writeFileSync(join(checkout, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(checkout, 'builds.log'), '');
    // The repository's own prepare script, with a build that only counts its runs.
    const { prepare } = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: { prepare: string } }).scripts;
    writeFileSync(
      join(checkout, 'package.json'),
      JSON.stringify({ name: 'sdk-checkout', version: '1.0.0', scripts: { build: 'node fake-build.cjs && node scripts/build-if-changed.mjs --stamp', prepare } }),
    );
    const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const checkoutBuilds = () => readFileSync(join(checkout, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;

    // The checkout's own npm install builds once.
    npm(['install', '--no-audit', '--no-fund'], checkout);
    expect(checkoutBuilds()).toBe(1);
    const built = statSync(join(checkout, 'dist', 'src', 'main.js')).mtimeMs;
    writeFileSync(join(client, 'package.json'), JSON.stringify({ name: 'my-client', version: '1.0.0', private: true }));
    npm(['install', '--no-audit', '--no-fund', checkout], client);
    expect(checkoutBuilds()).toBe(1);
    expect(statSync(join(checkout, 'dist', 'src', 'main.js')).mtimeMs).toBe(built);
  } finally {
    rmSync(checkout, { recursive: true, force: true });
    rmSync(client, { recursive: true, force: true });
  }
}, 120_000);
