import { Command } from 'commander';

/** Creates the database when missing and applies pending migrations (safe to run again). */
export async function migrateDatabase(databaseUrl: string): Promise<{ created: boolean }> {
  const { ensureDatabase, runMigrations } = await import('../../db/migrate.ts');
  const created = await ensureDatabase(databaseUrl);
  await runMigrations(databaseUrl);
  return { created };
}

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('create the database if missing and apply pending migrations (safe to run again)')
    .action(async () => {
      const { loadOptions } = await import('../../config/options.ts');
      const { created } = await migrateDatabase(loadOptions().DATABASE_URL);
      console.log(created ? 'database created and migrated' : 'database migrated');
    });
}
