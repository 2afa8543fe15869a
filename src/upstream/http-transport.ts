import type { Readable } from 'node:stream';
import { Agent, errors as undiciErrors, request as undiciRequest } from 'undici';
import { describe } from '../errors.ts';
import { secretScrubber } from '../runtime/scrub.ts';
import { MAX_ERROR_BODY_BYTES, utf8Prefix } from './errors.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { countJsonValues } from './json-values.ts';
import { answerHeapBytes } from '../config/memory-budget.ts';
import type { TransportOutcome, TransportRequest, TransportSettings, UpstreamTransport } from './transport.ts';

/**
 * The HTTP transport (transport.ts): waits for a start of the rate limiter, sends with the key through
 * a keep-alive agent, reads the body up to maxBodyBytes; a timeout or a network failure is an outcome.
 */
export function createHttpTransport(settings: TransportSettings, rateLimiter: RateLimiter): UpstreamTransport {
  const { apiKey, timeoutMs, maxBodyBytes, maxElements, answerBudget } = settings;
  const base = settings.baseUrl.replace(/\/+$/, '');
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs },
  });
  // The key, in any form an answer may echo it, never reaches logs or the database.
  const scrub = secretScrubber([apiKey]);

  async function send(request: TransportRequest, signal?: AbortSignal): Promise<TransportOutcome> {
    const asked = performance.now();
    await rateLimiter.acquire(signal, request.priority);
    const waitMs = performance.now() - asked;
    const timeout = AbortSignal.timeout(timeoutMs);
    const started = performance.now();
    try {
      const response = await undiciRequest(base + request.path, {
        dispatcher: agent,
        method: request.method,
        headers: {
          'x-api-key': apiKey,
          accept: 'application/json',
          ...(request.json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: request.json,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const declared = response.headers['content-length'];
      const declaredBytes = typeof declared === 'string' && /^\d+$/.test(declared) ? Number(declared) : undefined;
      const read = await readBody(response.body, maxBodyBytes, declaredBytes);
      const answer = {
        status: response.statusCode,
        retryAfter: response.headers['retry-after'],
        durationMs: performance.now() - started,
        waitMs,
      };
      if (read.kind === 'whole') {
        // Counted on the bytes, then decoded once its share of the budget is free. An answer past
        // maxElements is never parsed: only its text counts.
        const values = countJsonValues(read.bytes, maxElements);
        const parsed = values > maxElements ? 0 : values;
        const lease = await answerBudget.acquire(answerHeapBytes(read.bytes.byteLength, parsed), signal);
        try {
          return { kind: 'answer', ...answer, body: scrub(utf8.decode(read.bytes)), values, lease };
        } catch (error) {
          lease.release();
          throw error;
        }
      }
      return {
        kind: 'oversized',
        ...answer,
        // Scrubbed before the cut: a key that starts in the prefix is replaced whole, not left half.
        body: utf8Prefix(scrub(utf8.decode(read.start)), Math.min(maxBodyBytes, MAX_ERROR_BODY_BYTES)),
        maxBytes: maxBodyBytes,
        bytesRead: read.bytesRead,
        declaredBytes,
      };
    } catch (error) {
      // The caller gave up (shutdown): not an upstream fault.
      signal?.throwIfAborted();
      const durationMs = performance.now() - started;
      if (timeout.aborted || TIMEOUT_ERRORS.some((type) => error instanceof type)) {
        return { kind: 'failure', reason: 'timeout', message: `no answer within ${timeoutMs} ms`, durationMs, waitMs };
      }
      return {
        kind: 'failure',
        reason: 'network',
        message: `network error: ${scrub(describe(error))}`,
        durationMs,
        waitMs,
      };
    }
  }

  return {
    send,
    pause: (ms, reason) => rateLimiter.pause(ms, reason),
    close: () => agent.close(),
  };
}

type BodyRead =
  | { kind: 'whole'; bytes: Uint8Array }
  /** Larger than the limit: its first bytes, and how many were read in all. */
  | { kind: 'oversized'; start: Uint8Array; bytesRead: number };

/** Read past an oversized body's prefix, so that a key starting in it is scrubbed whole (≤ 12 bytes a character). */
const SCRUB_MARGIN_BYTES = 4096;

/**
 * Reads a body, holding at most `maxBytes` of it (plus one chunk): past the limit, or past the kept
 * prefix when its content-length announced more, the stream is destroyed, dropping the connection.
 */
async function readBody(body: Readable, maxBytes: number, declaredBytes: number | undefined): Promise<BodyRead> {
  const keepBytes = Math.min(maxBytes, MAX_ERROR_BODY_BYTES) + SCRUB_MARGIN_BYTES;
  const announcedTooLarge = declaredBytes !== undefined && declaredBytes > maxBytes;
  const chunks: Buffer[] = [];
  let bytesRead = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    bytesRead += chunk.byteLength;
    // Leaving the loop destroys the stream.
    if (bytesRead > maxBytes || (announcedTooLarge && bytesRead >= keepBytes)) break;
  }
  if (bytesRead <= maxBytes && !announcedTooLarge) return { kind: 'whole', bytes: Buffer.concat(chunks, bytesRead) };
  return { kind: 'oversized', start: Buffer.concat(chunks, Math.min(bytesRead, keepBytes)), bytesRead };
}

/** Decodes a body as undici's text() does: UTF-8, a leading byte order mark dropped. */
const utf8 = new TextDecoder();

const TIMEOUT_ERRORS = [
  undiciErrors.HeadersTimeoutError,
  undiciErrors.BodyTimeoutError,
  undiciErrors.ConnectTimeoutError,
];
