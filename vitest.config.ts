import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own process: SQLite files, ports and argon2 pools stay apart.
    pool: 'forks',
  },
});
