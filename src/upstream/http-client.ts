import type { z } from 'zod';
import {
  AuthError,
  InvalidPayloadError,
  OversizedPayloadError,
  PermanentError,
  RateLimitedError,
  TooManyElementsError,
  TransientError,
  snippet,
} from './errors.ts';
import { countJsonValues } from './json-values.ts';
import { readRetryAfterMs } from '../runtime/retry-after.ts';
import { sleep } from '../runtime/sleep.ts';
import type { TransportRequest } from './transport.ts';
import { issuePath } from './schemas.ts';
import type { UpstreamOperation } from '../datasets.ts';
import type { UpstreamClientSettings } from './client.ts';

/** A validated upstream answer together with what was received, for raw storage and run records. */
export interface UpstreamResponse<T> {
  operation: UpstreamOperation;
  /** Path and query as sent (the key travels in a header, never here). */
  url: string;
  status: number;
  body: string;
  data: T;
  receivedAt: Date;
  /** Duration of the attempt that succeeded. */
  durationMs: number;
  /** Requests sent for this call, retries included. */
  attempts: number;
  /**
   * Gives back the answer's share of the process's answer budget (answer-budget.ts): call it once
   * done with the answer (its rows written), or other large answers wait for ever.
   */
  release(): void;
}

export interface UpstreamRequest<T> extends Omit<TransportRequest, 'json'> {
  operation: UpstreamOperation;
  json?: unknown;
  schema: z.ZodType<T>;
  signal?: AbortSignal;
}

/** What an error about an answer carries: which request, which attempt, what came back. */
type AnswerFields = { operation: UpstreamOperation; url: string; attempts: number; status: number; body: string };

/** Wait after a 429 without a readable Retry-After. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/**
 * The one place that decides about upstream answers: every attempt goes out through the transport
 * (which waits for the shared rate limit and carries the key), is measured and logged, and its
 * outcome is classified (errors.ts). A transient fault (a timeout, a network error, a 408 or 5xx, a
 * 2xx that is not JSON) is retried here, at most maxRetries times, each retry through the pacer
 * again. A 429 is not retried here: it pauses the shared budget once, for its Retry-After capped at
 * maxPauseMs, and goes to the caller as RateLimitedError with the pause's end.
 */
export function createUpstreamHttp({ options, transport, metrics, ...settings }: UpstreamClientSettings) {
  // UPSTREAM_MAX_RETRIES is at most 2; UPSTREAM_MAX_PAUSE_MS caps any Retry-After.
  const { UPSTREAM_MAX_RETRIES: maxRetries, UPSTREAM_MAX_PAUSE_MS: maxPauseMs } = options;
  const maxElements = options.UPSTREAM_MAX_ELEMENTS;
  const logger = settings.logger.child({ component: 'upstream' });
  /** A Retry-After past the cap is said once per pause, not by every request that meets it. */
  let warnedUntil = 0;

  async function attempt<T>(request: UpstreamRequest<T>, attempts: number): Promise<UpstreamResponse<T>> {
    const { operation, path, priority } = request;
    const sent = request.json === undefined ? undefined : JSON.stringify(request.json);
    // Rejects with the caller's reason on abort (shutdown): not an upstream fault, nothing to record.
    const outcome = await transport.send({ method: request.method, path, json: sent, priority }, request.signal);
    metrics.rateLimitWaitSeconds.inc(outcome.waitMs / 1000);
    const { durationMs } = outcome;
    if (outcome.kind === 'failure') {
      record(operation, outcome.reason, durationMs);
      logger.debug(
        { operation, url: path, status: outcome.reason, durationMs, attempt: attempts },
        'upstream request failed',
      );
      throw new TransientError(outcome.message, { operation, url: path, attempts, reason: outcome.reason });
    }
    const { status, body, lease } = outcome;
    try {
      record(operation, String(status), durationMs);
      logger.debug({ operation, url: path, status, durationMs, attempt: attempts }, 'upstream request');
      // A data answer too large to read: its first bytes go to quarantine. Any other status is
      // classified as usual, on those first bytes (an error body is kept cut anyway).
      if (outcome.kind === 'oversized' && status >= 200 && status < 300)
        throw new OversizedPayloadError({ ...outcome, operation, url: path, attempts });
      const answer = { operation, url: path, attempts, status, body };
      if (status === 429) throw await pauseFor(answer, parseRetryAfterMs(outcome.retryAfter));
      if (status === 401 || status === 403) throw new AuthError(answer);
      if (status >= 500 || status === 408) {
        throw new TransientError(`the upstream failed (HTTP ${status})${snippet(body)}`, {
          ...answer,
          reason: 'server_error',
        });
      }
      if (status < 200 || status >= 300) throw new PermanentError(answer);
      // Counted before parsing (by the transport, on the bytes): parsing alone may take 20 times the body's size.
      const values = (outcome.kind === 'answer' ? outcome.values : undefined) ?? countJsonValues(body, maxElements);
      // Kept whole for quarantine: the body keeps its share until the job is done with it.
      if (values > maxElements) throw new TooManyElementsError({ ...answer, maxElements, lease });
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch (error) {
        throw new TransientError(`HTTP ${status} with a body that is not JSON${snippet(body, 100)}`, {
          ...answer,
          reason: 'invalid_json',
          cause: error,
        });
      }
      const parsed = request.schema.safeParse(json);
      if (!parsed.success)
        throw new InvalidPayloadError({ ...answer, issues: summarizeIssues(parsed.error.issues), lease });
      return {
        ...answer,
        data: parsed.data,
        receivedAt: new Date(),
        durationMs,
        release: () => lease?.release(),
      };
    } catch (error) {
      // An error that does not carry the whole body gives its share back now.
      if (!(error instanceof TooManyElementsError || error instanceof InvalidPayloadError)) lease?.release();
      throw error;
    }
  }

  function record(operation: UpstreamOperation, status: string, durationMs: number) {
    metrics.upstreamRequests.inc({ operation, status });
    metrics.upstreamLatency.observe({ operation }, durationMs / 1000);
  }

  /** Pauses the shared budget for a 429 (its Retry-After, capped): the error says until when. */
  async function pauseFor(answer: AnswerFields, retryAfterMs: number): Promise<RateLimitedError> {
    const { operation } = answer;
    metrics.upstreamRateLimited.inc({ operation });
    const capped = retryAfterMs > maxPauseMs;
    const reason =
      `HTTP 429 (${operation}): Retry-After ${formatSeconds(retryAfterMs)}` +
      (capped ? `, capped at ${formatSeconds(maxPauseMs)} (UPSTREAM_MAX_PAUSE_MS)` : '');
    // Every process sharing the budget waits, not only this request.
    const resumeAt = await transport.pause(Math.min(retryAfterMs, maxPauseMs), reason);
    if (capped && Date.now() >= warnedUntil) {
      warnedUntil = resumeAt.getTime();
      logger.warn(
        { operation, retryAfterMs, maxPauseMs, resumeAt: resumeAt.toISOString() },
        'the upstream asked to wait longer than UPSTREAM_MAX_PAUSE_MS: requests resume at the cap',
      );
    }
    logger.debug(
      { operation, url: answer.url, retryAfterMs, resumeAt: resumeAt.toISOString() },
      'upstream rate limited',
    );
    return new RateLimitedError({ ...answer, retryAfterMs, resumeAt });
  }

  return {
    async send<T>(request: UpstreamRequest<T>): Promise<UpstreamResponse<T>> {
      for (let attempts = 1; ; attempts++) {
        try {
          return await attempt(request, attempts);
        } catch (error) {
          if (!(error instanceof TransientError) || attempts > maxRetries) throw error;
          const delayMs = backoffDelayMs(attempts - 1);
          metrics.upstreamRetries.inc({ operation: request.operation, reason: error.reason });
          logger.debug(
            { operation: request.operation, url: request.path, reason: error.reason, delayMs },
            'upstream request retrying',
          );
          await sleep(delayMs, request.signal);
        }
      }
    },
    close: () => transport.close(),
  };
}

/**
 * Delay before transient retry number `retry` (0 for the first): uniformly random in
 * [0, 250 ms * 2^retry], so that retrying processes spread out instead of returning together.
 */
export function backoffDelayMs(retry: number, random: () => number = Math.random): number {
  return Math.round(random() * 250 * 2 ** retry);
}

/** Retry-After as delay-seconds or an HTTP date; the default when absent or unreadable. */
export function parseRetryAfterMs(value: string | string[] | undefined, now: number = Date.now()): number {
  return readRetryAfterMs(value, now) ?? DEFAULT_RETRY_AFTER_MS;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toLocaleString('en-US', { maximumFractionDigits: ms < 60_000 ? 1 : 0 })} s`;
}

/** zod issues as `path: message` lines, at most 20 of them. */
function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.slice(0, 20).map((issue) => `${issuePath(issue.path) || '(root)'}: ${issue.message}`);
  if (issues.length > 20) lines.push(`… and ${issues.length - 20} more`);
  return lines.join('\n');
}
