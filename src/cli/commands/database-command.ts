import type { Context } from '../../context.js';
import { createDatabase, type Database } from '../../db/client.js';
import { createCliContext, type OptionOverrides } from '../runtime.js';

/** Runs `work` with a context and a small database pool, closing the pool afterwards. */
export async function withDatabase<T>(work: (database: Database, context: Context) => Promise<T>, overrides: OptionOverrides = {}): Promise<T> {
  const context = createCliContext(overrides);
  const database = createDatabase(context.options.DATABASE_URL, { max: 2 });
  try {
    return await work(database, context);
  } finally {
    await database.close();
  }
}
