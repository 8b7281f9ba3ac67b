import { defineConfig } from 'vitest/config';

// The test tiers (docs/testing.md): `npm run test:fast` runs unit, contract (SQLite only, without
// GATEHOUSE_TEST_DATABASE_URL) and http:sqlite; `npm test` runs every project. Each file belongs to
// one project; the HTTP files to one per backend.
const postgresUrl = process.env['GATEHOUSE_TEST_DATABASE_URL'];
if (!postgresUrl) {
  console.warn('GATEHOUSE_TEST_DATABASE_URL is not set: the PostgreSQL + S3 runs are skipped (the HTTP suite runs on SQLite only)');
}

// Tests that inspect the embedded backend's own files (the SQLite file, the local blob folder):
// they hold on SQLite + local storage, and are not run on PostgreSQL + S3.
const embeddedOnly = ['tests/http/secrets-at-rest.test.ts', 'tests/http/malicious-names.test.ts'];

// Files that start processes (the compiled server, the CLI, python3, worker threads' own
// scripts) belong to `process` even where their folder is otherwise a unit or contract folder.
const processFiles = [
  'tests/files/crash-recovery.test.ts',
  'tests/events/readme-webhook-receiver.test.ts',
  'tests/signing/python-verifier.test.ts',
];

const project = (name: string, include: string[], exclude: string[] = [], env: Record<string, string> = {}) => ({
  extends: true as const,
  test: { name, include, exclude, env },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own process: SQLite files, ports and argon2 pools stay apart.
    pool: 'forks',
    projects: [
      project(
        'unit',
        ['tests/domain/**/*.test.ts', 'tests/application/**/*.test.ts', 'tests/dashboard/**/*.test.ts', 'tests/crypto/**/*.test.ts', 'tests/signing/**/*.test.ts', 'tests/events/**/*.test.ts', 'tests/*.test.ts'],
        processFiles,
      ),
      project('contract', ['tests/contract/**/*.test.ts', 'tests/files/**/*.test.ts'], processFiles),
      project('http:sqlite', ['tests/http/**/*.test.ts']),
      ...(postgresUrl ? [project('http:postgres', ['tests/http/**/*.test.ts'], embeddedOnly, { GATEHOUSE_TEST_BACKEND: 'postgres' })] : []),
      project('process', ['tests/cli/**/*.test.ts', 'tests/client/**/*.test.ts', 'tests/python-sdk/**/*.test.ts', 'tests/multi-instance/**/*.test.ts', ...processFiles]),
      project('e2e', ['tests/e2e/**/*.test.ts']),
    ],
  },
});
