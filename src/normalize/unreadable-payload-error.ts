import { ChaintapError } from '../errors.ts';

/**
 * A validated payload that still cannot be turned into rows (a nonsense timestamp, an unreadable
 * coin type, a number too large to be one). The job quarantines the body with this message; any
 * other error a normalizer throws is a bug in chaintap and fails the job.
 */
export class UnreadablePayloadError extends ChaintapError {
  override readonly retryable = false;
}
