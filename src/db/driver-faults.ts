// Faults of postgres.js 3.4.9 that would end the process when Postgres drops a connection, although
// the data are safe (Postgres rolls the job's transaction back and the job is retried).

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
 * The array-type fetch of a new connection, lost: the driver drops that promise, so it surfaces as an
 * unhandled rejection (porsager/postgres#1192, #1223), and fetches them again on its next connection.
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
