import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
export type Db = PostgresJsDatabase<Schema>;
export type Sql = postgres.Sql;

export interface Database {
  sql: Sql;
  db: Db;
  close(): Promise<void>;
}

/**
 * One postgres.js pool and its Drizzle handle. `numeric` columns stay strings end to end (exact);
 * timestamptz comes back as Date.
 */
export function createDatabase(url: string, options: { max?: number; applicationName?: string } = {}): Database {
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
  const db = drizzle(sql, { schema });
  return { sql, db, close: () => sql.end({ timeout: 5 }) };
}
