/**
 * How one request reaches the upstream: wait for a start of the shared budget, send it with the key,
 * read the body. Nothing more: retries, classification, JSON and schema checks, metrics and logs
 * stay with the HTTP client (http-client.ts), which works the same over either transport:
 * - the sender thread (sender-thread.ts), which the commands use: a thread that does nothing else,
 *   so a request leaves at its start time even while the process's event loop is busy;
 * - the HTTP transport run in the caller's thread (http-transport.ts), for tests.
 */
export interface UpstreamTransport {
  /** Rejects with the signal's reason once it is aborted, while waiting for a start or in flight. */
  send(request: TransportRequest, signal?: AbortSignal): Promise<TransportOutcome>;
  /** No request starts, anywhere the budget is shared, before `ms` from now (a 429's Retry-After). */
  pause(ms: number): Promise<void>;
  /** Ends the keep-alive connections (and the thread with its Redis connection). */
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

/** What came back, with the key scrubbed from every text. Plain data: it crosses threads. */
export type TransportOutcome = TransportAnswer | TransportFailure;

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
 * An answer as the sender thread posts it: the body's bytes (key scrubbed), whose buffer moves to
 * the main thread without a copy; the main thread decodes it (decodeOutcome).
 */
export type TransportBytesOutcome = (Omit<TransportAnswer, 'body'> & { body: Uint8Array }) | TransportFailure;

/** Decodes a body as undici's text() does: UTF-8, a leading byte order mark dropped. */
export function decodeOutcome(outcome: TransportBytesOutcome): TransportOutcome {
  return outcome.kind === 'answer' ? { ...outcome, body: utf8.decode(outcome.body) } : outcome;
}
const utf8 = new TextDecoder();

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
}

/** Replaces the key wherever an answer echoes it, so it never reaches logs, errors or the database. */
export function scrubber(apiKey: string): (text: string) => string {
  return (text) => (apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text);
}

/**
 * The same for a body's UTF-8 bytes: searched as bytes (no decoding) and returned as they are
 * unless they hold the key; then decoded, scrubbed and encoded again, into a buffer of their own.
 */
export function bytesScrubber(apiKey: string): (bytes: Uint8Array) => Uint8Array {
  const scrub = scrubber(apiKey);
  const key = Buffer.from(apiKey, 'utf8');
  const encoder = new TextEncoder();
  return (bytes) => {
    if (apiKey.length < 4 || Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(key) === -1)
      return bytes;
    return encoder.encode(scrub(utf8.decode(bytes)));
  };
}
