import { createDatabase, type Database, type DatabaseInstrumentation } from '../db/client.ts';
import type { Context } from '../runtime/context.ts';
import type { Shutdown } from '../runtime/shutdown.ts';

/** How the read pool's connections show in pg_stat_activity on the replica. */
export const READ_APPLICATION_NAME = 'chaintap-read';

/**
 * The database that reports, the status page and the alert rules' observations read
 * (docs/read-replicas.md): DATABASE_READ_URL when set, as a pool of its own closed with the command;
 * else the primary's handle itself, no second pool. Nothing connects until the first read, and an
 * unreachable replica is not checked at start: a BI replica that is down must not keep workers or
 * the scheduler from starting; what reads it fails on its own (a status page section, a report).
 */
export function openReadDatabase(
  context: Context,
  shutdown: Shutdown,
  primary: Database,
  pool: { max: number } & DatabaseInstrumentation = {
    max: context.options.DATABASE_POOL_SIZE,
    metrics: context.metrics,
    logger: context.logger,
  },
): Database {
  const url = context.options.DATABASE_READ_URL;
  if (url === undefined) return primary;
  const readDatabase = createDatabase(url, { ...pool, applicationName: READ_APPLICATION_NAME });
  shutdown.add('postgres (DATABASE_READ_URL)', () => readDatabase.close());
  return readDatabase;
}
