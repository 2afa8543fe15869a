import postgres from 'postgres';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';

export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

/** Where runQuery (src/db/query.ts) reports: without it, operations are neither measured nor logged. */
export interface DatabaseInstrumentation {
  metrics?: Pick<Metrics, 'dbQueryDuration'>;
  logger?: Logger;
}

/** Stores write plain SQL: the Drizzle schema is not loaded at run time (it takes about a second). */
export interface Database {
  sql: Sql;
  instrumentation?: DatabaseInstrumentation;
  close(): Promise<void>;
}

/** `numeric` and `bigint` come back as (exact) strings; json/jsonb parameters are sent as JSON text. */
export function createDatabase(
  url: string,
  options: { max?: number; applicationName?: string } & DatabaseInstrumentation = {},
): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'chaintap' },
    // Reconnect soon after a Postgres restart: a query on a dead connection fails, its job is retried whole.
    idle_timeout: 60,
    max_lifetime: 60 * 30,
    connect_timeout: 10,
  });
  // json (114) and jsonb (3802) parameters are JSON text already: not encoded again as a JSON string.
  for (const type of [114, 3802]) sql.options.serializers[type] = (text: unknown) => text;
  const instrumentation = { metrics: options.metrics, logger: options.logger };
  return { sql, instrumentation, close: () => sql.end({ timeout: 5 }) };
}
