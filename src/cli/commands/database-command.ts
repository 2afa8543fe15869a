import type { Context } from '../../runtime/context.ts';
import { withShutdown } from '../../runtime/shutdown.ts';
import { createDatabase, type Database } from '../../db/client.ts';
import { createCliContext, type OptionOverrides } from '../runtime.ts';
import { openReadDatabase } from '../read-database.ts';

/** Runs `work` with a context and a small database pool, closing the pool afterwards. */
export async function withDatabase<T>(
  work: (database: Database, context: Context) => Promise<T>,
  overrides: OptionOverrides = {},
): Promise<T> {
  return withDatabases(({ database }, context) => work(database, context), overrides);
}

/**
 * As withDatabase, with the read database beside the primary: DATABASE_READ_URL's own small pool
 * when set, else the primary's (docs/read-replicas.md). A pool connects on its first query only, so
 * a command that reads the replica alone never connects to the primary.
 */
export async function withDatabases<T>(
  work: (databases: { database: Database; readDatabase: Database }, context: Context) => Promise<T>,
  overrides: OptionOverrides = {},
): Promise<T> {
  const context = createCliContext(overrides);
  return withShutdown(context.logger, (shutdown) => {
    const database = createDatabase(context.options.DATABASE_URL, { max: 2 });
    shutdown.add('postgres', () => database.close());
    const readDatabase = openReadDatabase(context, shutdown, database, { max: 2 });
    return work({ database, readDatabase }, context);
  });
}
