import net from 'node:net';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
export type Db = PostgresJsDatabase<Schema>;
export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

/** Where runQuery (src/db/query.ts) reports: without it, operations are neither measured nor logged. */
export interface DatabaseInstrumentation {
  metrics?: Pick<Metrics, 'dbQueryDuration'>;
  logger?: Logger;
}

export interface Database {
  sql: Sql;
  db: Db;
  instrumentation?: DatabaseInstrumentation;
  close(): Promise<void>;
}

/**
 * Type ids whose parsing drizzle() switches off: timestamptz, timestamp, date, time, numeric and
 * their arrays. postgres.js registers array handlers at its first connection, only where none exist.
 */
const DRIZZLE_TYPES = [1184, 1114, 1082, 1083, 1185, 1115, 1182, 1231];

/**
 * A Drizzle handle over a postgres.js client: the pool, or a transaction of it (`pool` given).
 * drizzle() reads and changes `client.options`, which a postgres.js transaction lacks: it gets the
 * pool's. drizzle() also switches the client's date parsing off (it parses dates itself), in options
 * shared by the pool and its transactions; turning it back on keeps raw `sql` queries returning
 * Date and taking arrays of times, and Drizzle's timestamptz columns read a Date as well as a string.
 */
export function bindDrizzle(client: Sql | TransactionSql, pool?: Sql): Db {
  const target = client as Sql;
  if (!('options' in target) && pool) Object.assign(target, { options: pool.options });
  const { parsers, serializers } = target.options;
  const saved = DRIZZLE_TYPES.map((type) => [type, parsers[type], serializers[type]] as const);
  const db = drizzle(target, { schema });
  for (const [type, parse, serialize] of saved) {
    if (parse) parsers[type] = parse;
    else delete parsers[type];
    if (serialize) serializers[type] = serialize;
    else delete serializers[type];
  }
  return db;
}

/**
 * The connection's socket, with TCP_NODELAY (postgres.js does not set it). A COPY writes its data,
 * its end and the COMMIT as separate small packets; with Nagle's algorithm each waits for the
 * server's delayed ACK (about 40 ms), so a small COPY took 90 ms instead of 1. postgres.js handles
 * TLS on this socket itself; writes made before it connects are queued by Node. (With several hosts
 * in the URL, the first one is used.)
 */
function connectWithoutDelay(options: { host: string[]; port: number[]; path?: string | false }): net.Socket {
  return options.path
    ? net.connect({ path: options.path, noDelay: true })
    : net.connect({ host: options.host[0], port: options.port[0], noDelay: true });
}

/**
 * One postgres.js pool and its Drizzle handle. `numeric` columns stay strings end to end (exact);
 * timestamptz comes back as Date. json/jsonb parameters of raw queries must be passed as JSON text
 * with a cast (`${JSON.stringify(value)}::jsonb`): Drizzle turns postgres.js's JSON serializer off.
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
    // A documented option that postgres.js's type declarations leave out.
    ...({ socket: connectWithoutDelay } as object),
  });
  const db = bindDrizzle(sql);
  const instrumentation = { metrics: options.metrics, logger: options.logger };
  return { sql, db, instrumentation, close: () => sql.end({ timeout: 5 }) };
}
