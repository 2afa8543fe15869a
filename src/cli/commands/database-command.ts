import { loadOptions, type Options } from '../../config/options.ts';
import { cancelOnAbort } from '../../db/cancel-on-abort.ts';
import { createDatabase, type Database } from '../../db/client.ts';
import { openReadDatabase } from '../read-database.ts';
import { abortOnSignals } from '../signals.ts';

/**
 * Runs `work` with a small database pool (and `readDatabase`: openReadDatabase's), closing them after;
 * SIGTERM or SIGINT aborts `signal` and cancels the statements running.
 * No logger, metrics or Redis, so that a short command starts at once (`chaintap tokens list`).
 */
export async function withDatabase<T>(
  work: (database: Database, context: { options: Options; signal: AbortSignal; readDatabase: Database }) => Promise<T>,
): Promise<T> {
  const options = loadOptions();
  const signal = abortOnSignals();
  const database = createDatabase(options.DATABASE_URL, { max: 2 });
  const readDatabase = openReadDatabase(options, database, { max: 2 });
  try {
    // A signal cancels the statement running on the server: the command stops at once.
    const read = readDatabase === database ? undefined : cancelOnAbort(readDatabase, signal);
    const primary = cancelOnAbort(database, signal);
    return await work(primary, { options, signal, readDatabase: read ?? primary });
  } finally {
    await Promise.all([database.close(), readDatabase !== database && readDatabase.close()]);
  }
}
