import { readRetryAfterMs } from '../runtime/retry-after.ts';

/**
 * When the upstream client tries again. A transient fault (5xx, 408, a timeout, a network error, a
 * 2xx that is not JSON) is retried within the request after a short backoff with full jitter; a 429
 * pauses the shared budget for what the upstream asks (capped by the client).
 */

export const BACKOFF_BASE_MS = 250;
export const BACKOFF_FACTOR = 2;
/** Wait after a 429 without a readable Retry-After. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/**
 * Delay before transient retry number `retry` (0 for the first): uniformly random in
 * [0, base * factor^retry], so retrying processes spread out instead of returning together.
 */
export function backoffDelayMs(retry: number, random: () => number = Math.random): number {
  return Math.round(random() * BACKOFF_BASE_MS * BACKOFF_FACTOR ** retry);
}

/** Retry-After as delay-seconds or an HTTP date; the default when absent or unreadable. */
export function parseRetryAfterMs(value: string | string[] | undefined, now: number = Date.now()): number {
  return readRetryAfterMs(value, now) ?? DEFAULT_RETRY_AFTER_MS;
}
