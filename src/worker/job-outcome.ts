import { ChaintapError } from '../errors.ts';
import { UnreadablePayloadError } from '../normalize/unreadable-payload-error.ts';
import { AuthError, InvalidPayloadError, OversizedPayloadError, RateLimitedError } from '../upstream/errors.ts';

/**
 * What the queue does with a job whose attempt threw:
 * - quarantine: the payload cannot be read, or is too large to; its body (or the first bytes of it)
 *   is kept aside and the job completes.
 * - rate_limited: the job waits, delayed, until the shared pause (Retry-After, capped by
 *   UPSTREAM_MAX_PAUSE_MS) ends; the attempt is not counted.
 * - stop_and_alert: the API key was rejected; the job fails without retries and an error is logged.
 * - fail: retrying cannot help (UnrecoverableError); the job fails at once.
 * - retry: another attempt, after the queue's backoff, while attempts remain.
 */
export type JobOutcome = 'quarantine' | 'rate_limited' | 'stop_and_alert' | 'fail' | 'retry';

/** The one place where an error decides a job's fate: by its class, else by `retryable` (others retry). */
export function jobOutcome(error: unknown): JobOutcome {
  if (
    error instanceof InvalidPayloadError ||
    error instanceof OversizedPayloadError ||
    error instanceof UnreadablePayloadError
  )
    return 'quarantine';
  if (error instanceof RateLimitedError) return 'rate_limited';
  if (error instanceof AuthError) return 'stop_and_alert';
  return error instanceof ChaintapError && !error.retryable ? 'fail' : 'retry';
}
