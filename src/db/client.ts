import postgres from 'postgres';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';

export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

/** Type ids of json and jsonb. */
const JSON_TYPE = 114;
const JSONB_TYPE = 3802;

/** Where runQuery (src/db/query.ts) reports: without it, operations are neither measured nor logged. */
export interface DatabaseInstrumentation {
  metrics?: Pick<Metrics, 'dbQueryDuration'>;
  logger?: Logger;
}

/**
 * A postgres.js pool. Every store writes plain SQL through it; the Drizzle schema (src/db/schema)
 * describes the tables for drizzle-kit and the schema test, and is not loaded at run time (Drizzle
 * takes about a second to load on Node 24).
 */
export interface Database {
  sql: Sql;
  instrumentation?: DatabaseInstrumentation;
  close(): Promise<void>;
}

/**
 * One postgres.js pool. `numeric` and `bigint` columns come back as strings (exact); timestamptz as
 * Date. json/jsonb parameters are passed as JSON text with a cast (`${JSON.stringify(value)}::jsonb`),
 * so that a value is sent exactly as the writer serialized it.
 */
export function createDatabase(
  url: string,
  options: { max?: number; applicationName?: string } & DatabaseInstrumentation = {},
): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'chaintap' },
    // Reconnect quickly after a Postgres restart; a query on a dead connection fails and is retried
    // by the job, never half-applied (every job writes in one transaction).
    idle_timeout: 60,
    max_lifetime: 60 * 30,
    connect_timeout: 10,
  });
  // JSON parameters are JSON text already: sent as they are, not encoded again as a JSON string.
  for (const type of [JSON_TYPE, JSONB_TYPE]) sql.options.serializers[type] = (text: unknown) => text;
  const instrumentation = { metrics: options.metrics, logger: options.logger };
  return { sql, instrumentation, close: () => sql.end({ timeout: 5 }) };
}
