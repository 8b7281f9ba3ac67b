import { defineConfig } from 'vitest/config';

const postgresUrl = process.env['GATEHOUSE_TEST_DATABASE_URL'];
if (!postgresUrl) {
  console.warn('GATEHOUSE_TEST_DATABASE_URL is not set: the PostgreSQL + S3 runs are skipped (the HTTP suite runs on SQLite only)');
}

// Tests that inspect the embedded backend's own files (the SQLite file, the local blob folder):
// they hold on SQLite + local storage, and are not run on PostgreSQL + S3.
const embeddedOnly = ['tests/http/secrets-at-rest.test.ts', 'tests/http/malicious-names.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own process: SQLite files, ports and argon2 pools stay apart.
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['tests/**/*.test.ts'] } },
      ...(postgresUrl
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres+s3',
                include: ['tests/http/**/*.test.ts'],
                exclude: embeddedOnly,
                env: { GATEHOUSE_TEST_BACKEND: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
