import type { Context } from '../../runtime/context.js';
import { withShutdown } from '../../runtime/shutdown.js';
import { createDatabase, type Database } from '../../db/client.js';
import { createCliContext, type OptionOverrides } from '../runtime.js';

/** Runs `work` with a context and a small database pool, closing the pool afterwards. */
export async function withDatabase<T>(
  work: (database: Database, context: Context) => Promise<T>,
  overrides: OptionOverrides = {},
): Promise<T> {
  const context = createCliContext(overrides);
  return withShutdown(context.logger, (shutdown) => {
    const database = createDatabase(context.options.DATABASE_URL, { max: 2 });
    shutdown.add('postgres', () => database.close());
    return work(database, context);
  });
}
