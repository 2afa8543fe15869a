import type { AnswerBudget, AnswerLease } from './answer-budget.ts';

/**
 * How one request reaches the upstream: wait for a start of the shared budget, send it with the key,
 * read the body (http-transport.ts). Retries, classification, schema checks, metrics and logs stay
 * with the HTTP client (http-client.ts). Tests put a transport of their own in its place.
 */
export interface UpstreamTransport {
  /** Rejects with the signal's reason once it is aborted, while waiting for a start or in flight. */
  send(request: TransportRequest, signal?: AbortSignal): Promise<TransportOutcome>;
  /**
   * No request starts, anywhere the budget is shared, before `ms` from now (a 429's Retry-After);
   * `reason` is shown while it lasts. Resolves to the end of the pause in force.
   */
  pause(ms: number, reason: string): Promise<Date>;
  close(): Promise<void>;
}

export interface TransportRequest {
  method: 'GET' | 'POST';
  /** Path and query, already URL-encoded, starting with '/'. */
  path: string;
  json?: string;
  /** Among this process's requests waiting for a start, lower goes first (default 0): see acquire(). */
  priority?: number;
}

/** What came back, with the key scrubbed from every text. */
export type TransportOutcome = TransportAnswer | TransportOversized | TransportFailure;

interface TransportAnswer {
  kind: 'answer';
  status: number;
  retryAfter?: string | string[];
  body: string;
  /** The JSON values the body holds (json-values.ts), counted up to maxElements + 1; absent: not counted. */
  values?: number;
  /** The body's share of the answer budget, held until whoever uses the answer is done with it. */
  lease?: AnswerLease;
  /** From sending to the last byte of the body. */
  durationMs: number;
  /** Spent waiting for the rate limit before sending. */
  waitMs: number;
}

/**
 * An answer whose body passed maxBodyBytes (or announced more): reading stopped, the connection was
 * dropped, and `body` holds only its first bytes, at most MAX_ERROR_BODY_BYTES.
 */
interface TransportOversized extends Omit<TransportAnswer, 'kind'> {
  kind: 'oversized';
  maxBytes: number;
  bytesRead: number;
  /** What the answer's content-length announced, when it did. */
  declaredBytes?: number;
}

interface TransportFailure {
  kind: 'failure';
  reason: 'timeout' | 'network';
  message: string;
  durationMs: number;
  waitMs: number;
}

export interface TransportSettings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** A body larger than this is not read past it (UPSTREAM_MAX_BODY_BYTES). */
  maxBodyBytes: number;
  /** Values are counted up to this many and one more (UPSTREAM_MAX_ELEMENTS). */
  maxElements: number;
  /** The process's answer budget: a body is decoded only once its share is free. */
  answerBudget: AnswerBudget;
}
