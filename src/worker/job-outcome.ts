import { ChaintapError } from '../errors.ts';
import { UnreadablePayloadError } from '../normalize/unreadable-payload-error.ts';
import {
  AuthError,
  InvalidPayloadError,
  OversizedPayloadError,
  RateLimitedError,
  TooManyElementsError,
} from '../upstream/errors.ts';

/**
 * What the queue does with a job whose attempt threw: quarantine its body and complete; wait until
 * the shared pause ends without counting the attempt (rate_limited); fail without retries and log an
 * error (stop_and_alert: the key was rejected); fail at once; or retry while attempts remain.
 */
export type JobOutcome = 'quarantine' | 'rate_limited' | 'stop_and_alert' | 'fail' | 'retry';

/** The one place where an error decides a job's fate: by its class, else by `retryable` (others retry). */
export function jobOutcome(error: unknown): JobOutcome {
  if (
    error instanceof InvalidPayloadError ||
    error instanceof OversizedPayloadError ||
    error instanceof TooManyElementsError ||
    error instanceof UnreadablePayloadError
  )
    return 'quarantine';
  if (error instanceof RateLimitedError) return 'rate_limited';
  if (error instanceof AuthError) return 'stop_and_alert';
  return error instanceof ChaintapError && !error.retryable ? 'fail' : 'retry';
}
