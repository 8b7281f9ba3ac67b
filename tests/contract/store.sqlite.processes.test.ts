// Races between separate processes on one SQLite file. Inside one process better-sqlite3 runs
// every call to completion, so only other processes really contend for the write lock: these
// tests are what exercise BEGIN IMMEDIATE and busy_timeout. The children load the adapter
// transpiled into a temp folder (node 20 cannot import TypeScript), linked to the repo's
// node_modules and drizzle migrations.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDialect } from '../../src/adapters/persistence/sqlite/dialect.js';
import { openSqliteStore } from '../../src/adapters/persistence/sqlite/sqlite-store.js';
import { IN_FLIGHT_LEASE_MS } from '../../src/domain/auth-throttle.js';
import { domainError, makeLicense, makeUpload, seedApp, seedUser, T0 } from './fixtures.js';
import { openInspectableStore } from '../support/throttle-counters.js';
import { chainedEntryOf } from '../../src/application/events/chain-entry.js';
import { verifyChain } from '../../src/domain/audit-chain.js';
import { UNKEYED_AUDIT_KEY } from '../../src/adapters/persistence/sql-store.js';
import { SYSTEM } from '../../src/application/events/actor.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PROCESSES = 5;

// Each child waits for a shared start instant, then opens the store (racing the others to migrate
// a fresh file), fires its calls at once and prints a tally.
const worker = `
import { openSqliteStore } from './src/adapters/persistence/sqlite/sqlite-store.js';
import { accelerated } from './src/adapters/persistence/fast/accelerated.js';
import { openSqliteFastReads } from './src/adapters/persistence/fast/sqlite-fast-reads.js';
import { keepingStatements } from './src/adapters/persistence/fast/sqlite-statement-cache.js';
const [mode, path, startAt, json, fast] = process.argv.slice(2);
const input = JSON.parse(json);
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1));
const plain = openSqliteStore(fast === 'fast' ? { path, client: keepingStatements } : { path });
const store = fast === 'fast' ? accelerated(plain, openSqliteFastReads(path)) : plain;
const calls = {
  open: () => [store.ping()],
  activate: () => input.userIds.map((userId) => store.activateLicense({ applicationId: input.appId, userId, licenseDigest: input.digest, adjustmentId: crypto.randomUUID(), device: null, now: input.now }, { type: 'system', id: null, ip: null })),
  reserve: () => Array.from({ length: input.count }, () => store.reserveAuthAttempt(input.attempt, input.limits)),
  settle: () => Array.from({ length: input.count }, () => store.settleAuthAttempt(input.attempt, input.outcome, input.limits)),
  claim: () => Array.from({ length: input.count }, (_, i) => store.claimJob('w' + process.pid + '-' + i, input.now, 30000).then((j) => j?.id ?? 'none')),
  chain: () => Array.from({ length: input.count }, () => store.chainEvents(input.batch).then(String)),
}[mode]();
const tally = { fulfilled: 0, values: {}, codes: {} };
for (const r of await Promise.allSettled(calls)) {
  if (r.status === 'fulfilled') {
    tally.fulfilled++;
    if (typeof r.value === 'string') tally.values[r.value] = (tally.values[r.value] ?? 0) + 1;
  } else { const k = r.reason?.code ?? String(r.reason); tally.codes[k] = (tally.codes[k] ?? 0) + 1; }
}
await store.close();
process.stdout.write(JSON.stringify(tally));
`;

async function listTs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

/**
 * Transpiles the sources into `out`, but the PostgreSQL dialect and the dashboard: the store with
 * its SQLite dialect and what it imports (the domain, the event builders and the views they use,
 * the application's actor type). A module is only loaded when imported, so the rest costs nothing.
 */
async function buildChildRuntime(out: string): Promise<void> {
  const skipped = [`${sep}postgres${sep}`, `${sep}dashboard${sep}`];
  const sources = (await listTs(join(repo, 'src'))).filter((f) => !skipped.some((s) => f.includes(s)));
  for (const file of sources) {
    const { outputText } = ts.transpileModule(await readFile(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const target = join(out, relative(repo, file)).replace(/\.ts$/, '.js');
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
  await writeFile(join(out, 'package.json'), '{"type":"module"}');
  await writeFile(join(out, 'worker.js'), worker);
  await symlink(join(repo, 'node_modules'), join(out, 'node_modules'), 'dir');
  await symlink(join(repo, 'drizzle'), join(out, 'drizzle'), 'dir');
}

/** Fulfilled calls, the string values they resolved to, and the codes of the rejected ones. */
type Tally = { fulfilled: number; values: Record<string, number>; codes: Record<string, number> };

/** Whether the children run the accelerated store (fast/accelerated.ts) over the plain one. */
let accelerate = false;

function runChild(runtime: string, mode: string, path: string, startAt: number, input: unknown): Promise<Tally> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(runtime, 'worker.js'), mode, path, String(startAt), JSON.stringify(input), accelerate ? 'fast' : 'plain'], { cwd: runtime });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(JSON.parse(stdout) as Tally) : fail(new Error(`child exited ${code}: ${stderr}`))));
  });
}

/** Runs one child per input, all starting together, and sums their tallies. */
async function race(runtime: string, mode: string, path: string, inputs: unknown[]): Promise<Tally> {
  const startAt = Date.now() + 1500;
  const tallies = await Promise.all(inputs.map((input) => runChild(runtime, mode, path, startAt, input)));
  const sum: Tally = { fulfilled: 0, values: {}, codes: {} };
  for (const t of tallies) {
    sum.fulfilled += t.fulfilled;
    for (const [k, n] of Object.entries(t.values)) sum.values[k] = (sum.values[k] ?? 0) + n;
    for (const [k, n] of Object.entries(t.codes)) sum.codes[k] = (sum.codes[k] ?? 0) + n;
  }
  return sum;
}

// The plain store is the specification; the accelerated one must keep to it across processes too.
for (const fast of [false, true]) {
  describe(fast ? 'SQLite store shared by several processes, accelerated' : 'SQLite store shared by several processes', () => {
    let root = '';
    let runtime = '';

    beforeAll(async () => {
      accelerate = fast;
      root = await mkdtemp(join(tmpdir(), 'gatehouse-sqlite-procs-'));
      runtime = join(root, 'runtime');
      await buildChildRuntime(runtime);
    });
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('processes opening a fresh file together all migrate it successfully', async () => {
      const path = join(root, `${randomUUID()}.db`);
      const result = await race(
        runtime,
        'open',
        path,
        Array.from({ length: PROCESSES }, () => ({})),
      );
      expect(result).toEqual({ fulfilled: PROCESSES, values: {}, codes: {} });
    });

    it('a license raced for by several processes is used exactly once', async () => {
      const path = join(root, `${randomUUID()}.db`);
      const store = openSqliteStore({ path });
      const { app } = await seedApp(store);
      const license = makeLicense(app.id);
      await store.insertLicenses([license], SYSTEM);
      const users = await Promise.all(Array.from({ length: PROCESSES * 10 }, () => seedUser(store, app.id)));
      const inputs = Array.from({ length: PROCESSES }, (_, p) => ({
        appId: app.id,
        digest: license.codeDigest,
        now: T0,
        userIds: users.slice(p * 10, p * 10 + 10).map((u) => u.id),
      }));
      try {
        const result = await race(runtime, 'activate', path, inputs);
        expect(result).toEqual({ fulfilled: 1, values: {}, codes: { LICENSE_USED: PROCESSES * 10 - 1 } });
        const details = await Promise.all(users.map((u) => store.getUserDetails(app.id, u.id)));
        expect(details.reduce((n, d) => n + (d?.adjustments.length ?? 0), 0)).toBe(1);
      } finally {
        await store.close();
      }
    });

    it('guesses at one account from several processes get exactly the threshold of turns, then lock it', async () => {
      const path = join(root, `${randomUUID()}.db`);
      const { store, readThrottle } = openInspectableStore(openSqliteDialect(path));
      const { app } = await seedApp(store);
      const attempt = { applicationId: app.id, accountKey: 'user:victim', ip: '198.51.100.9', now: T0 };
      const limits = { lockoutThreshold: 10, ipFailureLimit: 1000, accountFailureLimit: 1000 };
      try {
        const reserve = { attempt, limits, count: 10 };
        const reserved = await race(
          runtime,
          'reserve',
          path,
          Array.from({ length: PROCESSES }, () => reserve),
        );
        expect(reserved).toEqual({ fulfilled: PROCESSES * 10, values: { reserved: 10, busy: PROCESSES * 10 - 10 }, codes: {} });
        expect(await readThrottle(app.id, attempt.accountKey, attempt.ip)).toEqual({
          account: { failures: 0, lockedUntil: null, lockouts: 0, inFlight: 10, inFlightUntil: T0 + IN_FLIGHT_LEASE_MS },
          everywhere: { windowStart: T0, failures: 10 },
          ip: { windowStart: T0, failures: 10 },
        });
        // The 10 checks settle as failures, two per process at once: none is lost, so the account locks.
        const settle = { attempt, limits, outcome: 'failure', count: 10 / PROCESSES };
        const settled = await race(
          runtime,
          'settle',
          path,
          Array.from({ length: PROCESSES }, () => settle),
        );
        expect(settled).toEqual({ fulfilled: 10, values: {}, codes: {} });
        expect((await readThrottle(app.id, attempt.accountKey, attempt.ip)).account).toEqual({
          failures: 0,
          lockedUntil: T0 + 60_000,
          lockouts: 1,
          inFlight: 0,
          inFlightUntil: null,
        });
        // The lockout holds for every process.
        const again = await race(
          runtime,
          'reserve',
          path,
          Array.from({ length: PROCESSES }, () => ({ ...reserve, attempt: { ...attempt, now: T0 + 1000 }, count: 2 })),
        );
        expect(again).toEqual({ fulfilled: 0, values: {}, codes: { ACCOUNT_LOCKED: PROCESSES * 2 } });
        await domainError(store.reserveAuthAttempt({ ...attempt, now: T0 + 59_999 }, limits), 'ACCOUNT_LOCKED');
      } finally {
        await store.close();
      }
    });

    it('audit chainers in several processes link each event exactly once into one chain', async () => {
      const path = join(root, `${randomUUID()}.db`);
      const store = openSqliteStore({ path });
      const { app } = await seedApp(store);
      const events = 60;
      for (let i = 0; i < events; i++) {
        await store.recordEvent({ applicationId: app.id, action: 'variable.changed', target: { type: 'variable', id: `v${i}`, label: null }, data: { i } }, T0 + i, SYSTEM);
      }
      try {
        const result = await race(
          runtime,
          'chain',
          path,
          Array.from({ length: PROCESSES }, () => ({ batch: 7, count: 4 })),
        );
        const linked = Object.entries(result.values).reduce((n, [value, times]) => n + Number(value) * times, 0);
        expect(result.codes).toEqual({});
        // Whatever the processes left (each chains at most 4 x 7), one more pass finishes.
        expect(linked + (await store.chainEvents(1000))).toBe(events);
        const chained = await store.chainedEvents(app.id, 0, 1000);
        expect(chained.map((e) => e.seq)).toEqual(Array.from({ length: events }, (_, i) => i + 1));
        const entries = chained.map((e) => ({ ...chainedEntryOf(e, e.seq!), hash: e.hash! }));
        expect(verifyChain(UNKEYED_AUDIT_KEY, entries, await store.chainHead(app.id))).toEqual({ ok: true, count: events, legacy: 0 });
      } finally {
        await store.close();
      }
    });

    it('jobs claimed by several processes at once are each claimed exactly once', async () => {
      const path = join(root, `${randomUUID()}.db`);
      const store = openSqliteStore({ path });
      const { app } = await seedApp(store);
      const uploads = Array.from({ length: 8 }, (_, i) => makeUpload(app.id, {}, { createdAt: T0 + i }));
      for (const u of uploads) await store.createFile(u.file, u.job);
      try {
        const result = await race(
          runtime,
          'claim',
          path,
          Array.from({ length: PROCESSES }, () => ({ now: T0, count: 4 })),
        );
        const once = Object.fromEntries(uploads.map((u) => [u.job.id, 1]));
        expect(result).toEqual({ fulfilled: PROCESSES * 4, values: { ...once, none: PROCESSES * 4 - 8 }, codes: {} });
        expect(await store.claimJob('late', T0, 30_000)).toBeNull();
      } finally {
        await store.close();
      }
    });
  });
}
