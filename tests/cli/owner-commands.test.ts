// The owner commands of the compiled CLI (issue 13): they use the server's data folder (same
// resolution: GATEHOUSE_DATA_DIR, else ./data of the current folder), refuse to create a new
// database unless --init, take the password from stdin or a terminal prompt, and give a way back
// to an owner who lost a console token (login) or a password (reset-password). The start banner
// says whether an owner exists.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseServerEnv, buildServer, killServer, repoRoot, startServerProcess, type Build, type ServerProcess } from '../support/server-process.js';
import { runGatehouse } from './run-cli.js';

let build: Build;
let folder: string;
let server: ServerProcess | null = null;

beforeAll(async () => {
  build = await buildServer();
  folder = mkdtempSync(join(tmpdir(), 'gatehouse-owner-cli-'));
}, 180_000);

afterAll(async () => {
  await killServer(server);
  build?.remove();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** The CLI run in `cwd` without GATEHOUSE_DATA_DIR (as `npm run gatehouse` in a checkout). */
const cli = (args: string[], cwd: string, input?: string) => runGatehouse(build.outDir, args, { LOG_LEVEL: 'warn' }, cwd, input);
const withoutDataDir = () => {
  const env = baseServerEnv({ LOG_LEVEL: 'warn' });
  delete env['GATEHOUSE_DATA_DIR'];
  return env;
};

async function consoleApplications(base: string, token: string): Promise<number> {
  return (await fetch(`${base}/api/console/applications`, { headers: { authorization: `Bearer ${token}` } })).status;
}

/**
 * The CLI on a pseudo-terminal (util-linux `script`), answering each `Password` prompt once it
 * has been printed; what the terminal showed.
 */
function onTerminal(args: string[], cwd: string, answers: string[]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, join(build.outDir, 'src', 'cli.js'), ...args].map((w) => `'${w}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd, env: withoutDataDir(), stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let answered = 0;
  const onOutput = (d: Buffer) => {
    screen += d.toString();
    const prompts = screen.split(/Password( again)?: /).length - 1;
    while (answered < prompts && answered < answers.length) child.stdin.write(`${answers[answered++]}\r`);
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  return new Promise((done) => child.once('close', (code) => done({ code, screen })));
}

describe("owner commands on the server's data folder", () => {
  it('owner create refuses, in one line, to create a database without --init, and creates none', async () => {
    const run = await cli(['owner', 'create', '--email', 'first@example.com', '--password-stdin'], folder, 'first-owner-password\n');
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `gatehouse: no Gatehouse database at ${join(folder, 'data', 'gatehouse.db')}: run this with the server's settings: where it runs or with its GATEHOUSE_DATA_DIR (default ./data of the current folder); on PostgreSQL, with its DATABASE_URL and GATEHOUSE_MASTER_KEY (--init creates a new embedded database here instead)`,
    ]);
    expect(existsSync(join(folder, 'data'))).toBe(false);
  }, 30_000);

  it('the start banner names the data folder and suggests creating the first owner only while there is none', async () => {
    // The server in the same folder without GATEHOUSE_DATA_DIR: ./data there.
    server = await startServerProcess(build.outDir, withoutDataDir(), 20_000, folder);
    const banner = server.output.join('');
    expect(banner).toContain(`(data in ${join(folder, 'data')})`);
    expect(banner).toContain(
      `No owner yet. Create the first one (in the checkout; it asks for a password): GATEHOUSE_DATA_DIR=${join(folder, 'data')} npm run --silent gatehouse -- owner create --email you@example.com`,
    );
    expect((await fetch(`${server.base}/`, { redirect: 'manual' })).headers.get('location')).toBe('/dashboard/');
  }, 30_000);

  it("owner create then finds the server's database by the same resolution, and its token works there", async () => {
    const run = await cli(['owner', 'create', '--email', 'first@example.com', '--password-stdin'], folder, 'first-owner-password\n');
    expect(run.code, run.stderr).toBe(0);
    const created = JSON.parse(run.stdout) as { owner: { email: string }; token: string };
    expect(created.owner.email).toBe('first@example.com');
    expect(await consoleApplications(server!.base, created.token)).toBe(200);

    // A restart no longer suggests creating an owner.
    await killServer(server);
    server = await startServerProcess(build.outDir, withoutDataDir(), 20_000, folder);
    const banner = server.output.join('');
    expect(banner).not.toContain('owner create');
    expect(banner).toContain('owner login --email');
  }, 60_000);

  it('owner create asks for the password twice on a terminal', async () => {
    const run = await onTerminal(['owner', 'create', '--email', 'second@example.com'], folder, ['second-owner-password', 'second-owner-password']);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toMatch(/Password: \r?\nPassword again: \r?\n/);
    const token = (JSON.parse(/\{.*\}/.exec(run.screen)![0]) as { token: string }).token;
    expect(await consoleApplications(server!.base, token)).toBe(200);
    // Two different answers: nothing is created.
    const differ = await onTerminal(['owner', 'create', '--email', 'third@example.com'], folder, ['third-owner-password', 'another-password']);
    expect(differ.code).toBe(2);
    expect(differ.screen).toContain('gatehouse: the two passwords differ');
  }, 60_000);

  it('owner list lists the owners', async () => {
    const json = await cli(['owner', 'list', '--json'], folder);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as Array<{ email: string }>).map((o) => o.email)).toEqual(['first@example.com', 'second@example.com']);
    const text = await cli(['owner', 'list'], folder);
    expect(text.stdout).toMatch(/^first@example\.com\t[0-9a-f-]{36}\tcreated \d{4}-\d\d-\d\dT.*\nsecond@example\.com\t/);
  }, 30_000);

  it('owner login prints a new console token for the right password (stdin or prompt) and refuses a wrong one', async () => {
    const run = await cli(['owner', 'login', '--email', 'first@example.com', '--password-stdin'], folder, 'first-owner-password\n');
    expect(run.code, run.stderr).toBe(0);
    const { token } = JSON.parse(run.stdout) as { token: string };
    expect(await consoleApplications(server!.base, token)).toBe(200);

    const prompted = await onTerminal(['owner', 'login', '--email', 'first@example.com'], folder, ['first-owner-password']);
    expect(prompted.code, prompted.screen).toBe(0);
    expect(prompted.screen).not.toContain('first-owner-password');

    const wrong = await cli(['owner', 'login', '--email', 'first@example.com', '--password-stdin'], folder, 'not-the-password\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toBe('gatehouse: invalid email or password\n');
    // Without a terminal and without --password-stdin there is nothing to read.
    const none = await cli(['owner', 'login', '--email', 'first@example.com'], folder);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^gatehouse: no password: pass --password-stdin/);
  }, 60_000);

  it("owner reset-password sets a new password, revokes the owner's console tokens and lifts a sign-in lock", async () => {
    // Whoever took the account holds a token (the CLI's) and a browser session (the dashboard's).
    const stolen = await cli(['owner', 'login', '--email', 'first@example.com', '--password-stdin'], folder, 'first-owner-password\n');
    const stolenToken = (JSON.parse(stolen.stdout) as { token: string }).token;
    expect(await consoleApplications(server!.base, stolenToken)).toBe(200);
    const browser = await fetch(`${server!.base}/api/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'first@example.com', password: 'first-owner-password' }),
    });
    expect(browser.status).toBe(200);
    const cookie = browser.headers.get('set-cookie')!.split(';')[0]!;
    const browserStatus = async () => (await fetch(`${server!.base}/api/console/applications`, { headers: { cookie } })).status;
    expect(await browserStatus()).toBe(200);
    // Lock the account through the console API, as a guesser would.
    for (let i = 0; i < 10; i++) {
      await fetch(`${server!.base}/api/console/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.com', password: `guess-number-${i}` }),
      });
    }
    const locked = await fetch(`${server!.base}/api/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'first@example.com', password: 'first-owner-password' }),
    });
    expect(locked.status).toBe(429);

    const reset = await cli(['owner', 'reset-password', '--email', 'first@example.com', '--password-stdin'], folder, 'a-brand-new-password\n');
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ owner: { email: 'first@example.com' } });
    expect((JSON.parse(reset.stdout) as { revoked_tokens: number }).revoked_tokens).toBeGreaterThanOrEqual(2);
    expect(await consoleApplications(server!.base, stolenToken)).toBe(401);
    expect(await browserStatus()).toBe(401);

    const signIn = (password: string) =>
      fetch(`${server!.base}/api/console/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'first@example.com', password }) });
    expect((await signIn('first-owner-password')).status).toBe(401);
    expect((await signIn('a-brand-new-password')).status).toBe(200);

    const unknown = await cli(['owner', 'reset-password', '--email', 'nobody@example.com', '--password-stdin'], folder, 'a-brand-new-password\n');
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toBe('gatehouse: no owner with the email nobody@example.com (see gatehouse owner list)\n');
    const short = await cli(['owner', 'reset-password', '--email', 'first@example.com', '--password-stdin'], folder, 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toBe('gatehouse: password: must be at least 8 characters\n');
  }, 60_000);

  it('owner unlock lifts the sign-in locks on an owner, at every address, and keeps the password', async () => {
    const signIn = (password: string) =>
      fetch(`${server!.base}/api/console/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'first@example.com', password }) });
    for (let i = 0; i < 10; i++) await signIn(`unlock-guess-${i}`);
    expect((await signIn('a-brand-new-password')).status).toBe(429);

    const unlocked = await cli(['owner', 'unlock', '--email', 'first@example.com'], folder);
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect(JSON.parse(unlocked.stdout)).toMatchObject({ owner: { email: 'first@example.com' }, unlocked: true });
    expect((await signIn('a-brand-new-password')).status).toBe(200);

    const unknown = await cli(['owner', 'unlock', '--email', 'nobody@example.com'], folder);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toBe('gatehouse: no owner with the email nobody@example.com (see gatehouse owner list)\n');
  }, 60_000);

  it('from another folder the owner commands refuse instead of using an empty database', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'gatehouse-owner-elsewhere-'));
    try {
      for (const args of [
        ['owner', 'list'],
        ['owner', 'login', '--email', 'first@example.com', '--password-stdin'],
      ]) {
        const run = await cli(args, elsewhere, 'a-brand-new-password\n');
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/^gatehouse: no Gatehouse database at .*gatehouse\.db: run this with the server's settings: .*DATABASE_URL and GATEHOUSE_MASTER_KEY/);
      }
      // With the server's GATEHOUSE_DATA_DIR it is the same data again.
      const pointed = await runGatehouse(build.outDir, ['owner', 'list', '--json'], { LOG_LEVEL: 'warn', GATEHOUSE_DATA_DIR: join(folder, 'data') }, elsewhere);
      expect(JSON.parse(pointed.stdout)).toHaveLength(2);
      expect(existsSync(join(elsewhere, 'data'))).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('gatehouse --help, <command> --help and --version (docs/cli.md, CI command line)', () => {
  // Each section of the usage: its command groups, and lines its help shows.
  const sections: Array<{ groups: string[]; lines: string[] }> = [
    { groups: ['owner'], lines: ['gatehouse owner create', 'gatehouse owner unlock', '--password-stdin'] },
    { groups: ['backup', 'restore'], lines: ['gatehouse backup <file>', 'gatehouse restore <file>', 'GATEHOUSE_DATA_DIR'] },
    { groups: ['files'], lines: ['gatehouse files push', 'gatehouse files rm', 'GATEHOUSE_ADMIN_API_KEY'] },
    { groups: ['user'], lines: ['gatehouse user <username|license code>', 'GATEHOUSE_URL'] },
    { groups: ['license'], lines: ['gatehouse license <code>', 'GATEHOUSE_ADMIN_API_KEY'] },
    { groups: ['license-file'], lines: ['gatehouse license-file verify', 'needs no server'] },
  ];
  const byGroup = sections.flatMap((section) => section.groups.map((group) => [group, section] as const));

  it('--help lists every command and exits 0; without arguments the same usage exits 2', async () => {
    const help = await cli(['--help'], folder);
    expect(help.code).toBe(0);
    for (const { lines } of sections) expect(help.stdout).toContain(lines[0]);
    expect(help.stdout).toContain('gatehouse --version');
    const bare = await cli([], folder);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe(help.stdout);
  });

  it.each(byGroup)('%s --help shows its section and notes, no other, and exits 0', async (group, section) => {
    for (const args of [
      [group, '--help'],
      [group, '-h'],
      [group, 'push', '--help'],
    ]) {
      const help = await cli(args, folder);
      expect(help.code).toBe(0);
      for (const line of section.lines) expect(help.stdout).toContain(line);
      for (const other of sections.filter((s) => s !== section)) expect(help.stdout).not.toContain(other.lines[0]);
    }
  });

  it('--version prints the package version; an unknown command with --help is a usage error', async () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const shown = await cli(['--version'], folder);
    expect(shown).toMatchObject({ code: 0, stdout: `gatehouse ${version}\n` });
    const unknown = await cli(['nope', '--help'], folder);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^gatehouse: unknown command: nope\n/);
  });
});
