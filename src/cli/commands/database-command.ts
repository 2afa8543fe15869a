import { loadOptions, type Options } from '../../config/options.ts';
import { createDatabase, type Database } from '../../db/client.ts';
import { openReadDatabase } from '../read-database.ts';
import { abortOnSignals } from '../signals.ts';

/** What a database command gets besides its databases: the settings, and SIGTERM/SIGINT as a signal. */
type DatabaseCommandContext = { options: Options; signal: AbortSignal };

/** Runs `work` with a small database pool, closing the pool afterwards. */
export function withDatabase<T>(work: (database: Database, context: DatabaseCommandContext) => Promise<T>): Promise<T> {
  return withDatabases(({ database }, context) => work(database, context));
}

/**
 * As withDatabase, with the read database beside the primary: DATABASE_READ_URL's own small pool
 * when set, else the primary's (docs/read-replicas.md). A pool connects on its first query only, so
 * a command that reads the replica alone never connects to the primary. A short command of its own:
 * no logger, no metrics, no Redis, so that it starts at once (`chaintap tokens list`).
 */
export async function withDatabases<T>(
  work: (databases: { database: Database; readDatabase: Database }, context: DatabaseCommandContext) => Promise<T>,
): Promise<T> {
  const options = loadOptions();
  const signal = abortOnSignals();
  const database = createDatabase(options.DATABASE_URL, { max: 2 });
  const readDatabase = openReadDatabase(options, database, { max: 2 });
  try {
    return await work({ database, readDatabase }, { options, signal });
  } finally {
    await Promise.all([database.close(), readDatabase !== database && readDatabase.close()]);
  }
}
