// drizzle-kit configuration for the SQLite migrations: `npm run db:generate:sqlite` diffs the
// schema against drizzle/sqlite/meta and writes the next migration there.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/adapters/persistence/sqlite/schema.ts',
  out: './drizzle/sqlite',
});
