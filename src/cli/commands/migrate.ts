import { Command } from 'commander';
import { ensureDatabase, runMigrations } from '../../db/migrate.ts';
import { createCliContext } from '../runtime.ts';

/** Creates the database when missing and applies pending migrations (safe to run again). */
export async function migrateDatabase(databaseUrl: string): Promise<{ created: boolean }> {
  const created = await ensureDatabase(databaseUrl);
  await runMigrations(databaseUrl);
  return { created };
}

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('create the database if missing and apply pending migrations (safe to run again)')
    .action(async () => {
      const context = createCliContext();
      const { created } = await migrateDatabase(context.options.DATABASE_URL);
      context.logger.info({ created }, 'migrations applied');
      console.log(created ? 'database created and migrated' : 'database migrated');
    });
}
