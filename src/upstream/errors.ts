import type { UpstreamOperation } from '../datasets.ts';
import { ChaintapError } from '../errors.ts';
import type { AnswerLease } from './answer-budget.ts';

// What can go wrong when calling the upstream, as classes that map onto queue behaviour
// (worker/job-outcome.ts). Only the upstream client constructs them: only it decides what is retryable.

/** Error bodies are kept for diagnosis, but never more than this many bytes of them. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface UpstreamErrorDetails {
  operation: UpstreamOperation;
  /** Path and query of the request (the key travels in a header). */
  url: string;
  status?: number;
  /** Response body as received (truncated to MAX_ERROR_BODY_BYTES except for InvalidPayloadError). */
  body?: string;
  /** Requests sent for this call, retries included. */
  attempts?: number;
  /** The body given is already cut (an oversized answer). */
  bodyTruncated?: boolean;
  /** The whole body's share of the answer budget, for an error that carries it to quarantine. */
  lease?: AnswerLease;
  cause?: unknown;
}

export abstract class UpstreamError extends ChaintapError {
  readonly operation: UpstreamOperation;
  readonly url: string;
  readonly status?: number;
  readonly body?: string;
  readonly bodyTruncated: boolean;
  readonly attempts: number;
  readonly #lease?: AnswerLease;

  constructor(message: string, details: UpstreamErrorDetails, keepWholeBody = false) {
    super(`${details.operation} ${details.url}: ${message}`, { cause: details.cause });
    this.operation = details.operation;
    this.url = details.url;
    this.status = details.status;
    this.body =
      details.body === undefined || keepWholeBody ? details.body : utf8Prefix(details.body, MAX_ERROR_BODY_BYTES);
    this.bodyTruncated = this.body !== details.body || details.bodyTruncated === true;
    this.attempts = details.attempts ?? 1;
    this.#lease = details.lease;
  }

  /** Gives back the body's share of the answer budget once it is quarantined (or dropped). */
  release(): void {
    this.#lease?.release();
  }
}

/** 401 or 403: the key was rejected. Never retried; the message never contains the key. */
export class AuthError extends UpstreamError {
  override readonly retryable = false;
  constructor(details: UpstreamErrorDetails) {
    super(`the upstream rejected the API key (HTTP ${details.status}); check UPSTREAM_API_KEY`, details);
  }
}

/** 429: the shared budget is paused until resumeAt; the job waits until then without spending an attempt. */
export class RateLimitedError extends UpstreamError {
  override readonly retryable = true;
  /** What the upstream asked for (Retry-After, or 1 s without one). */
  readonly retryAfterMs: number;
  readonly resumeAt: Date;
  constructor(details: UpstreamErrorDetails & { retryAfterMs: number; resumeAt: Date }) {
    super(`rate limited by the upstream (HTTP 429), requests resume at ${details.resumeAt.toISOString()}`, details);
    this.retryAfterMs = details.retryAfterMs;
    this.resumeAt = details.resumeAt;
  }
}

/** 5xx, 408, a timeout, a network failure, or a 200 whose body is not JSON: worth another try. */
export class TransientError extends UpstreamError {
  override readonly retryable = true;
  /** Short machine-readable cause: server_error, timeout, network, invalid_json. */
  readonly reason: TransientReason;
  constructor(message: string, details: UpstreamErrorDetails & { reason: TransientReason }) {
    super(message, details);
    this.reason = details.reason;
  }
}
export type TransientReason = 'server_error' | 'timeout' | 'network' | 'invalid_json';

/** Any other non-2xx answer (400, 404, 3xx...): the request itself is wrong; retrying cannot help. */
export class PermanentError extends UpstreamError {
  override readonly retryable = false;
  constructor(details: UpstreamErrorDetails) {
    super(`the upstream refused the request (HTTP ${details.status})${snippet(details.body)}`, details);
  }
}

/** A JSON 2xx body that fails the wire schema. Carries the whole body so it can be quarantined. */
export class InvalidPayloadError extends UpstreamError {
  override readonly retryable = false;
  declare readonly body: string;
  /** Readable summary of what did not fit, one `path: message` per line. */
  readonly issues: string;
  constructor(details: UpstreamErrorDetails & { body: string; issues: string }) {
    super(`the response does not match the expected shape:\n${details.issues}`, details, true);
    this.issues = details.issues;
  }
}

/**
 * An answer larger than UPSTREAM_MAX_BODY_BYTES, not read past it: it carries the body's first bytes,
 * which a 2xx answer's job quarantines. Retrying would fetch the same answer.
 */
export class OversizedPayloadError extends UpstreamError {
  override readonly retryable = false;
  declare readonly body: string;
  readonly maxBytes: number;
  readonly bytesRead: number;
  constructor(
    details: UpstreamErrorDetails & { body: string; maxBytes: number; bytesRead: number; declaredBytes?: number },
  ) {
    const size =
      details.declaredBytes === undefined
        ? `reading stopped after ${details.bytesRead} bytes`
        : `${details.declaredBytes} bytes announced`;
    super(
      `answer larger than ${details.maxBytes} bytes (UPSTREAM_MAX_BODY_BYTES; ${size}): ` +
        `its first ${Buffer.byteLength(details.body)} bytes are kept`,
      { ...details, bodyTruncated: true },
    );
    this.maxBytes = details.maxBytes;
    this.bytesRead = details.bytesRead;
  }
}

/**
 * An answer within UPSTREAM_MAX_BODY_BYTES that carries more JSON values than UPSTREAM_MAX_ELEMENTS:
 * not parsed (what it would cost is bounded by the two limits together, docs/operations.md), carried
 * whole so that its job quarantines it. Retrying would fetch the same answer.
 */
export class TooManyElementsError extends UpstreamError {
  override readonly retryable = false;
  declare readonly body: string;
  constructor(details: UpstreamErrorDetails & { body: string; maxElements: number }) {
    super(
      `answer of more than ${details.maxElements} JSON values (UPSTREAM_MAX_ELEMENTS; ` +
        `${Buffer.byteLength(details.body)} bytes): not read, kept whole`,
      details,
      true,
    );
  }
}

/** The first few hundred characters of a body, for an error message. */
export function snippet(body: string | undefined, max = 200): string {
  if (!body) return '';
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat ? `: ${flat.length > max ? `${flat.slice(0, max)}…` : flat}` : '';
}

/** The longest start of `text` within `maxBytes` of UTF-8, cut before a character rather than through it. */
export function utf8Prefix(text: string, maxBytes: number): string {
  // Cheap check first: a string of n UTF-16 units has at most 3n UTF-8 bytes.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
