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
