/**
 * When a failed delivery is tried again, and when it is given up. Pure. A webhook that is down is
 * retried with exponential backoff for a day; an answer that retrying cannot change (a 4xx other
 * than 408, 409, 425 and 429, or a redirect) fails the delivery at once.
 */
export const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_DELAY_MS = 5 * 60_000;
export const GIVE_UP_AFTER_MS = 24 * 3600_000;

/** Statuses worth retrying: timeouts, conflicts of an in-flight idempotent request, rate limits, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/** Wait before attempt `attempts + 1`, after `attempts` failed ones; a Retry-After the receiver gave wins (capped). */
export function retryDelayMs(attempts: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, FIRST_RETRY_MS), MAX_RETRY_DELAY_MS);
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
}

/** Whether a delivery recorded at `createdAt` has been retried long enough. */
export function givesUp(createdAt: Date, now: Date): boolean {
  return now.getTime() - createdAt.getTime() >= GIVE_UP_AFTER_MS;
}
