/**
 * Faults of the Postgres driver (postgres.js 3.4.9, the newest release) that chaintap works around
 * until fixed releases exist. Each would otherwise end the whole process when Postgres drops a
 * connection (a restart, a failover, pg_terminate_backend), although the data are safe: a job's
 * transaction is rolled back by Postgres and the job is retried.
 */

/** Driver and socket codes of a connection that is gone. */
const LOST_CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
]);

/** True for a lost connection: a driver or socket error, or a FATAL server error (57P01 terminated, shutdown). */
export function isConnectionLost(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    const { code, severity } = e as { code?: unknown; severity?: unknown };
    if (typeof code === 'string' && LOST_CONNECTION_CODES.has(code)) return true;
    if (severity === 'FATAL' || severity === 'PANIC') return true;
  }
  return false;
}

/**
 * The driver fetches the array types as the first query of every new connection and drops that
 * promise, so a connection lost during it surfaces as an unhandled rejection, which ends a Node
 * process (porsager/postgres#1192, #1223). The driver fetches them again on its next connection:
 * this rejection can be ignored. The error carries the query text (postgres.js adds it).
 */
export function isLostArrayTypeFetch(reason: unknown): boolean {
  const query = (reason as { query?: unknown } | undefined)?.query;
  return (
    typeof query === 'string' &&
    query.includes('b.typarray') &&
    query.includes('pg_catalog.pg_type') &&
    isConnectionLost(reason)
  );
}
