import { ChaintapError } from '../errors.ts';

/**
 * A validated payload that still cannot be turned into rows (a nonsense timestamp, an unreadable coin
 * type): the job quarantines the body with this message. Any other normalizer error is a bug.
 */
export class UnreadablePayloadError extends ChaintapError {
  override readonly retryable = false;
}
