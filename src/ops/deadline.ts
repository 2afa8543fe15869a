/**
 * Rejects when `promise` has not settled within `ms`. The ops endpoints answer within bounded time
 * even when Redis or Postgres hangs (a worker's Redis connection queues commands while offline).
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const { promise: deadline, reject } = Promise.withResolvers<never>();
  const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** A section of a page either loaded or failed on its own, so one unreachable store never blanks the page. */
export type Section<T> = { ok: true; value: T } | { ok: false; error: string };

export async function loadSection<T>(load: () => Promise<T>, timeoutMs: number, what: string): Promise<Section<T>> {
  try {
    return { ok: true, value: await withDeadline(load(), timeoutMs, what) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
