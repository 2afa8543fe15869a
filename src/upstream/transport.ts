import { secretScrubber } from '../runtime/scrub.ts';

/**
 * How one request reaches the upstream: wait for a start of the shared budget, send it with the key,
 * read the body (http-transport.ts). Nothing more: retries, classification, JSON and schema checks,
 * metrics and logs stay with the HTTP client (http-client.ts). Tests put a transport of their own
 * in its place to script what comes back.
 */
export interface UpstreamTransport {
  /** Rejects with the signal's reason once it is aborted, while waiting for a start or in flight. */
  send(request: TransportRequest, signal?: AbortSignal): Promise<TransportOutcome>;
  /**
   * No request starts, anywhere the budget is shared, before `ms` from now (a 429's Retry-After);
   * `reason` is shown while it lasts. Resolves to the end of the pause in force.
   */
  pause(ms: number, reason: string): Promise<Date>;
  /** Ends the keep-alive connections. */
  close(): Promise<void>;
}

export interface TransportRequest {
  method: 'GET' | 'POST';
  /** Path and query, already URL-encoded, starting with '/'. */
  path: string;
  /** JSON text of the body, when there is one. */
  json?: string;
  /**
   * Among this process's requests waiting for a start, lower goes first (default 0; ties in order
   * of sending): see the rate limiter's acquire().
   */
  priority?: number;
}

/** What came back, with the key scrubbed from every text. */
export type TransportOutcome = TransportAnswer | TransportOversized | TransportFailure;

export interface TransportAnswer {
  kind: 'answer';
  status: number;
  retryAfter?: string | string[];
  /** Body text as received. */
  body: string;
  /** From sending to the last byte of the body. */
  durationMs: number;
  /** Spent waiting for the rate limit before sending. */
  waitMs: number;
}

/**
 * An answer whose body is larger than the limit (maxBodyBytes): reading stopped once it passed it,
 * or at once when the answer announced more, and the connection was dropped. Only the body's first
 * bytes are kept, at most MAX_ERROR_BODY_BYTES.
 */
export interface TransportOversized extends Omit<TransportAnswer, 'kind'> {
  kind: 'oversized';
  /** The first bytes of the body, as text. */
  body: string;
  maxBytes: number;
  /** Body bytes read before reading stopped. */
  bytesRead: number;
  /** What the answer's content-length announced, when it did. */
  declaredBytes?: number;
}

export interface TransportFailure {
  kind: 'failure';
  reason: 'timeout' | 'network';
  /** What went wrong, for the error message. */
  message: string;
  durationMs: number;
  waitMs: number;
}

export interface TransportSettings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** A body larger than this is not read past it (UPSTREAM_MAX_BODY_BYTES): TransportOversized. */
  maxBodyBytes: number;
}

/**
 * Replaces the key wherever an answer echoes it, in any form (as it is, URL-encoded, JSON-escaped:
 * src/runtime/scrub.ts), so it never reaches logs, errors or the database.
 */
export function scrubber(apiKey: string): (text: string) => string {
  return secretScrubber([apiKey]);
}
