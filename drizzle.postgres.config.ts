// drizzle-kit configuration for the PostgreSQL migrations: `npm run db:generate:postgres` diffs the
// schema against drizzle/postgres/meta and writes the next migration there.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/adapters/persistence/postgres/schema.ts',
  out: './drizzle/postgres',
});
