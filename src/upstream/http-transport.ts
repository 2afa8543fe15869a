import { Agent, errors as undiciErrors, request as undiciRequest } from 'undici';
import { describe } from '../errors.js';
import type { RateLimiter } from './rate-limiter.js';
import {
  bytesScrubber,
  decodeOutcome,
  scrubber,
  type TransportBytesOutcome,
  type TransportRequest,
  type TransportSettings,
  type UpstreamTransport,
} from './transport.js';

/** The HTTP transport, which also gives an answer's body as bytes (what the sender thread posts). */
export interface HttpTransport extends UpstreamTransport {
  sendForBytes(request: TransportRequest, signal?: AbortSignal): Promise<TransportBytesOutcome>;
}

/**
 * The HTTP exchange of a transport (transport.ts), in the thread that creates it: the sender thread
 * (sender-thread-entry.ts), or a test's. Waits for a start, sends with the key through a keep-alive
 * agent, reads the body; a timeout or a network failure is an outcome too, described without the key.
 */
export function createHttpTransport(settings: TransportSettings, rateLimiter: RateLimiter): HttpTransport {
  const { apiKey, timeoutMs } = settings;
  const base = settings.baseUrl.replace(/\/+$/, '');
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs },
  });
  const scrub = scrubber(apiKey);
  const scrubBytes = bytesScrubber(apiKey);

  async function exchange(
    request: TransportRequest,
    waitMs: number,
    signal: AbortSignal | undefined,
  ): Promise<TransportBytesOutcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    const onCallerAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
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
        signal: controller.signal,
      });
      const body = scrubBytes(new Uint8Array(await response.body.arrayBuffer()));
      const retryAfter = response.headers['retry-after'];
      return {
        kind: 'answer',
        status: response.statusCode,
        retryAfter,
        body,
        durationMs: performance.now() - started,
        waitMs,
      };
    } catch (error) {
      // The caller gave up (shutdown): not an upstream fault.
      signal?.throwIfAborted();
      const durationMs = performance.now() - started;
      if (controller.signal.aborted || isTimeout(error)) {
        return { kind: 'failure', reason: 'timeout', message: `no answer within ${timeoutMs} ms`, durationMs, waitMs };
      }
      return {
        kind: 'failure',
        reason: 'network',
        message: `network error: ${scrub(describe(error))}`,
        durationMs,
        waitMs,
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  const sendForBytes = async (request: TransportRequest, signal?: AbortSignal): Promise<TransportBytesOutcome> => {
    const asked = performance.now();
    await rateLimiter.acquire(signal, request.priority);
    return exchange(request, performance.now() - asked, signal);
  };
  return {
    sendForBytes,
    send: async (request, signal) => decodeOutcome(await sendForBytes(request, signal)),
    pause: (ms) => rateLimiter.pause(ms),
    close: () => agent.close(),
  };
}

function isTimeout(error: unknown): boolean {
  return (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  );
}
