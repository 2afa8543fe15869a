import { loadOptions, type Options } from '../../config/options.ts';
import { createDatabase, type Database } from '../../db/client.ts';
import { openReadDatabase } from '../read-database.ts';
import { abortOnSignals } from '../signals.ts';

/**
 * Runs `work` with a small database pool, closing it afterwards. A short command of its own: no
 * logger, no metrics, no Redis, so that it starts at once (`chaintap tokens list`). Beside the
 * primary, `readDatabase`: DATABASE_READ_URL's own small pool when set, else the primary
 * (docs/read-replicas.md); a pool connects on its first query only.
 */
export async function withDatabase<T>(
  work: (database: Database, context: { options: Options; signal: AbortSignal; readDatabase: Database }) => Promise<T>,
): Promise<T> {
  const options = loadOptions();
  const database = createDatabase(options.DATABASE_URL, { max: 2 });
  const readDatabase = openReadDatabase(options, database, { max: 2 });
  try {
    return await work(database, { options, signal: abortOnSignals(), readDatabase });
  } finally {
    await Promise.all([database.close(), readDatabase !== database && readDatabase.close()]);
  }
}
