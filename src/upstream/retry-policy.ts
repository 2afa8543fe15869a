import { readRetryAfterMs } from '../runtime/retry-after.ts';

/**
 * When the upstream client tries again. Transient faults (5xx, 408, timeouts, network errors, a 2xx
 * that is not JSON) back off exponentially with full jitter; 429s wait what the upstream asks.
 */

export const BACKOFF_BASE_MS = 250;
export const BACKOFF_FACTOR = 2;
export const BACKOFF_CAP_MS = 8_000;
/** 429s retried within one request before RateLimitedError goes to the caller (the queue re-queues). */
export const MAX_RATE_LIMIT_RETRIES = 5;
/** A Retry-After longer than this is not waited out inside a request: the job is re-queued instead. */
export const MAX_IN_REQUEST_RATE_LIMIT_WAIT_MS = 30_000;
/** Wait after a 429 without a readable Retry-After. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/**
 * Delay before transient retry number `retry` (0 for the first): uniformly random in
 * [0, min(cap, base * factor^retry)], so retrying processes spread out instead of returning together.
 */
export function backoffDelayMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * BACKOFF_FACTOR ** retry);
  return Math.round(random() * ceiling);
}

/** Retry-After as delay-seconds or an HTTP date; the default when absent or unreadable. */
export function parseRetryAfterMs(value: string | string[] | undefined, now: number = Date.now()): number {
  return readRetryAfterMs(value, now) ?? DEFAULT_RETRY_AFTER_MS;
}
