import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes a migration for schema changes; partitioning, views, functions and
// the reader role are hand-written SQL migrations (`drizzle-kit generate --custom`), see docs/schema.md.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './migrations',
  strict: true,
});
