import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The test tiers (docs/testing.md): `npm run test:fast` runs unit, contract (SQLite only, without
// GATEHOUSE_TEST_DATABASE_URL) and http:sqlite; `npm test` runs every project. Each file belongs to
// one project; the HTTP files to one per backend.
const postgresUrl = process.env['GATEHOUSE_TEST_DATABASE_URL'];
if (!postgresUrl) {
  console.warn('GATEHOUSE_TEST_DATABASE_URL is not set: the PostgreSQL + S3 runs are skipped (the HTTP suite runs on SQLite only)');
}

// The folders of tests/ each tier runs ('.' is tests/ itself).
const tiers = {
  unit: ['.', 'domain', 'application', 'dashboard', 'crypto', 'signing', 'events', 'bench'],
  contract: ['contract', 'files'],
  http: ['http'],
  process: ['cli', 'client', 'python-sdk', 'multi-instance', 'outage'],
  e2e: ['e2e'],
};

// Files that start processes (the compiled server, the CLI, python3) belong to `process` even
// where their folder is otherwise a unit or contract folder.
const processFiles = ['tests/files/crash-recovery.test.ts', 'tests/events/readme-webhook-receiver.test.ts', 'tests/signing/python-verifier.test.ts'];

// Tests that inspect the embedded backend's own files (the SQLite file, the local blob folder):
// they hold on SQLite + local storage, and are not run on PostgreSQL + S3.
const embeddedOnly = ['tests/http/secrets-at-rest.test.ts', 'tests/http/malicious-names.test.ts'];

// Files that replace a module (vi.mock) get a worker of their own: a shared worker (isolate: false)
// may have loaded the real module for an earlier file, and the mock would leak into later ones.
const mockingFiles = ['tests/http/write-transactions.test.ts'];

// A test file in a folder no tier names would never run: refuse to start instead.
const named = new Set(Object.values(tiers).flat());
const testsRoot = fileURLToPath(new URL('./tests', import.meta.url));
for (const entry of readdirSync(testsRoot, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
  const folder = relative(testsRoot, entry.parentPath).split(sep)[0] || '.';
  if (!named.has(folder)) throw new Error(`tests/${folder}/ is in no test tier: add it to one in vitest.config.ts`);
}

const globs = (folders: string[]) => folders.map((f) => (f === '.' ? 'tests/*.test.ts' : `tests/${f}/**/*.test.ts`));
const project = (name: string, include: string[], exclude: string[] = [], env: Record<string, string> = {}, isolate = true) => ({
  extends: true as const,
  test: { name, include, exclude, env, isolate },
});
// In-process tiers reuse a worker process for file after file (isolate: false): the modules of
// src/ are loaded once per worker instead of once per file. Their files set no globals, mocks or
// environment; each builds its own apps and stores (docs/testing.md, "What keeps tests fast").
const isolateFiles = false;

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Worker processes, not threads: SQLite files, ports and argon2 pools stay apart from the runner.
    pool: 'forks',
    // One worker per core, not vitest's default of one fewer: the runner itself is mostly idle,
    // and on a two-core machine the default runs every file in turn (docs/testing.md).
    maxWorkers: availableParallelism(),
    projects: [
      project('unit', globs(tiers.unit), processFiles, {}, isolateFiles),
      project('contract', globs(tiers.contract), processFiles, {}, isolateFiles),
      project('http:sqlite', globs(tiers.http), mockingFiles, {}, isolateFiles),
      project('http:sqlite:isolated', mockingFiles),
      ...(postgresUrl
        ? [
            project('http:postgres', globs(tiers.http), [...embeddedOnly, ...mockingFiles], { GATEHOUSE_TEST_BACKEND: 'postgres' }, isolateFiles),
            project('http:postgres:isolated', mockingFiles, [], { GATEHOUSE_TEST_BACKEND: 'postgres' }),
          ]
        : []),
      project('process', [...globs(tiers.process), ...processFiles]),
      project('e2e', globs(tiers.e2e)),
    ],
  },
});
