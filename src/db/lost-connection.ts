// Whether an error means that the connection to Postgres is gone: the work is safe to run again on a
// new one (Postgres rolled its transaction back).

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
