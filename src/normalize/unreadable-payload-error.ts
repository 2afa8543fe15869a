import { ChaintapError } from '../errors.js';

/**
 * A validated payload that still cannot be turned into rows (a nonsense timestamp, an unreadable
 * coin type, a number too large to be one). The job quarantines the body with this message.
 */
export class UnreadablePayloadError extends ChaintapError {}
