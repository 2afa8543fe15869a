import type { Options } from '../config/options.ts';
import { createDatabase, type Database, type DatabaseInstrumentation } from '../db/client.ts';
import type { Context } from '../runtime/context.ts';
import type { Shutdown } from '../runtime/shutdown.ts';

/** How the read pool's connections show in pg_stat_activity on the replica. */
export const READ_APPLICATION_NAME = 'chaintap-read';

/**
 * What reports and the status page read (docs/read-replicas.md): DATABASE_READ_URL's own pool, else
 * `primary`. Not reached at start: a replica that is down must not keep the services from starting.
 */
export function openReadDatabase(
  options: Pick<Options, 'DATABASE_READ_URL'>,
  primary: Database,
  pool: { max: number } & DatabaseInstrumentation,
): Database {
  const url = options.DATABASE_READ_URL;
  if (url === undefined) return primary;
  return createDatabase(url, { ...pool, applicationName: READ_APPLICATION_NAME });
}

/** A long-running process's read database (openReadDatabase), its own pool closed at shutdown. */
export function openServiceReadDatabase(
  { options, metrics, logger }: Context,
  shutdown: Shutdown,
  primary: Database,
): Database {
  const readDatabase = openReadDatabase(options, primary, { max: options.DATABASE_POOL_SIZE, metrics, logger });
  if (readDatabase !== primary) shutdown.add('postgres (DATABASE_READ_URL)', () => readDatabase.close());
  return readDatabase;
}
