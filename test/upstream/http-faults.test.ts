import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOptions } from '../../src/config/options.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics, type Metrics } from '../../src/runtime/metrics.ts';
import { createUpstreamClient, transportSettings, type UpstreamClient } from '../../src/upstream/client.ts';
import {
  AuthError,
  InvalidPayloadError,
  MAX_ERROR_BODY_BYTES,
  PermanentError,
  RateLimitedError,
  TransientError,
  UpstreamError,
} from '../../src/upstream/errors.ts';
import { createHttpTransport } from '../../src/upstream/http-transport.ts';
import { createSharedRateLimiter } from '../../src/upstream/rate-limiter.ts';
import { MAX_RATE_LIMIT_RETRIES } from '../../src/upstream/retry-policy.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { hang, json, reset, stallBody, startFaultServer, text, type FaultServer } from './fault-server.ts';

/**
 * Every fault the client must classify, injected by a real HTTP server over real sockets, with the
 * shared rate limiter on real Redis.
 */
const API_KEY = 'test-key-5f3a9c1e7b';
const SUI = '0x2::sui::SUI';

describe('upstream client under faults', () => {
  let server: FaultServer;
  let testRedis: TestRedis;
  let redis: Redis;
  let client: UpstreamClient;
  let metrics: Metrics;
  const logLines: string[] = [];
  let limiterCount = 0;

  beforeAll(async () => {
    server = await startFaultServer();
    testRedis = createTestRedis();
    redis = new Redis(testRedis.url);
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.script();
    server.fallback(json(200, { data: [] }));
    metrics = createMetrics({ defaultMetrics: false });
    // No `secrets` on purpose: the logger's own scrubbing must not be what keeps the key out.
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'debug', destination });
    const options = loadOptions(
      { UPSTREAM_BASE_URL: server.url, UPSTREAM_API_KEY: API_KEY, UPSTREAM_TIMEOUT_MS: 300, UPSTREAM_MAX_RETRIES: 2 },
      {},
    );
    // A budget of this test's own, so a pause in one test never holds up the next.
    const rateLimiter = createSharedRateLimiter({
      redis,
      key: `${testRedis.prefix}:upstream:pace:${++limiterCount}`,
      rps: 500,
    });
    client = createUpstreamClient({
      options,
      logger,
      metrics,
      transport: createHttpTransport(transportSettings(options), rateLimiter),
    });
  });
  afterEach(async () => {
    await client.close();
  });
  afterAll(async () => {
    await server.close();
    redis.disconnect();
    await testRedis.cleanup();
    // Collected over every test of this file, faults and retries included.
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(line).not.toContain(API_KEY);
  });

  async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
    const error = await promise.then(
      () => expect.fail('expected the call to fail'),
      (error: unknown) => error,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    const upstreamError = error as UpstreamError;
    for (const visible of [
      upstreamError.message,
      String(upstreamError),
      upstreamError.stack ?? '',
      JSON.stringify(upstreamError),
    ]) {
      expect(visible).not.toContain(API_KEY);
    }
    return upstreamError;
  }

  const counter = async (metric: keyof Metrics, labels: Record<string, string>) => {
    const { values } = await (metrics[metric] as Metrics['upstreamRequests']).get();
    const matches = (found: Record<string, unknown>) => Object.entries(labels).every(([name, v]) => found[name] === v);
    return values.find((value) => matches(value.labels))?.value ?? 0;
  };

  it('sends the key on every request, retries included', async () => {
    server.script(text(503, 'busy'), reset, json(200, { data: [] }));
    await client.fetchProtocols();
    await client.fetchPositions('0x' + 'a'.repeat(64));
    expect(server.requests).toHaveLength(4);
    for (const request of server.requests) expect(request.headers['x-api-key']).toBe(API_KEY);
  });

  it.each([401, 403])('%i: AuthError at once, never retried, the key not in the error', async (status) => {
    server.fallback(text(status, `{"error":"invalid key ${API_KEY}"}`));
    const error = await failure(client.fetchTokenPriceBatch([SUI]));
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status, retryable: false, operation: 'prices', attempts: 1 });
    expect(error.message).toMatch(/rejected the API key/);
    // The echoed key is scrubbed from the kept body too.
    expect(error.body).toBe('{"error":"invalid key [redacted]"}');
    expect(server.requests).toHaveLength(1);
  });

  it('429: waits at least Retry-After, then succeeds', async () => {
    server.script(text(429, 'slow down', { 'retry-after': '1' }));
    const response = await client.fetchProtocols();
    expect(response.attempts).toBe(2);
    const [first, second] = server.requests;
    expect(second!.arrivedAt - first!.arrivedAt).toBeGreaterThanOrEqual(1000);
    expect(await counter('upstreamRateLimited', { operation: 'protocols' })).toBe(1);
    expect(await counter('upstreamRetries', { operation: 'protocols', reason: 'rate_limited' })).toBe(1);
  });

  it(`429: gives up with RateLimitedError after ${MAX_RATE_LIMIT_RETRIES} retries`, async () => {
    server.fallback(text(429, '', { 'retry-after': '0' }));
    const error = await failure(client.fetchProtocols());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 0,
      attempts: MAX_RATE_LIMIT_RETRIES + 1,
    });
    expect(server.requests).toHaveLength(MAX_RATE_LIMIT_RETRIES + 1);
  });

  it('429 with a long Retry-After: hands it to the caller at once, the shared budget paused', async () => {
    server.fallback(text(429, '', { 'retry-after': '120' }));
    const error = await failure(client.fetchProtocols());
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(120_000);
    expect(server.requests).toHaveLength(1);
    // The next call of any process waits too: it is still waiting when given up on.
    await expect(client.fetchProtocols({ signal: AbortSignal.timeout(200) })).rejects.toThrow();
    expect(server.requests).toHaveLength(1);
  });

  it('5xx: retried with backoff, bounded by UPSTREAM_MAX_RETRIES', async () => {
    server.fallback(text(502, '<html>bad gateway</html>'));
    const error = await failure(client.fetchTokenPriceBatch([SUI]));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({
      status: 502,
      reason: 'server_error',
      retryable: true,
      attempts: 3,
      body: '<html>bad gateway</html>',
    });
    expect(server.requests).toHaveLength(3);
    expect(await counter('upstreamRequests', { operation: 'prices', status: '502' })).toBe(3);
    expect(await counter('upstreamRetries', { operation: 'prices', reason: 'server_error' })).toBe(2);
  });

  it('5xx then 200: succeeds on the retry', async () => {
    server.script(text(500, 'oops'));
    const response = await client.fetchTokenPriceBatch([SUI]);
    expect(response).toMatchObject({ status: 200, attempts: 2 });
  });

  it('keeps at most 64 KiB of an error body', async () => {
    server.fallback(text(404, 'é'.repeat(MAX_ERROR_BODY_BYTES)));
    const error = await failure(client.fetchProtocols());
    expect(Buffer.byteLength(error.body!)).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    expect(error.body).toBe('é'.repeat(MAX_ERROR_BODY_BYTES / 2));
    expect(error.bodyTruncated).toBe(true);
  });

  it('no answer: a timeout, retried, then TransientError', async () => {
    server.fallback(hang);
    const error = await failure(client.fetchProtocols());
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ reason: 'timeout', status: undefined, attempts: 3 });
    expect(server.requests).toHaveLength(3);
    expect(await counter('upstreamRequests', { operation: 'protocols', status: 'timeout' })).toBe(3);
  });

  it('a body that stalls half-way: a timeout too', async () => {
    server.script(stallBody);
    const response = await client.fetchProtocols();
    expect(response.attempts).toBe(2);
    expect(await counter('upstreamRetries', { operation: 'protocols', reason: 'timeout' })).toBe(1);
  });

  it('connection reset: retried as a network fault', async () => {
    server.script(reset, reset);
    const response = await client.fetchPositions('0x' + 'b'.repeat(64));
    expect(response.attempts).toBe(3);
    expect(await counter('upstreamRequests', { operation: 'positions', status: 'network' })).toBe(2);
    server.fallback(reset);
    const error = await failure(client.fetchPositions('0x' + 'b'.repeat(64)));
    expect(error).toMatchObject({ reason: 'network', retryable: true });
  });

  it('200 with a body that is not JSON: retried, then TransientError', async () => {
    server.script(text(200, '<html>maintenance</html>'));
    expect((await client.fetchProtocols()).attempts).toBe(2);
    server.fallback(text(200, ''));
    const error = await failure(client.fetchProtocols());
    expect(error).toMatchObject({ reason: 'invalid_json', status: 200, attempts: 3 });
  });

  it.each([400, 404, 422])('%i: PermanentError at once, with the body', async (status) => {
    server.fallback(json(status, { message: 'no such thing' }));
    const error = await failure(client.fetchNftHoldings('0x' + 'c'.repeat(40)));
    expect(error).toBeInstanceOf(PermanentError);
    expect(error).toMatchObject({ status, retryable: false, body: '{"message":"no such thing"}', attempts: 1 });
    expect(error.message).toContain('no such thing');
    expect(server.requests).toHaveLength(1);
  });

  it('a JSON 200 whose envelope fails the schema: InvalidPayloadError with the whole body, not retried', async () => {
    const filler = 'x'.repeat(MAX_ERROR_BODY_BYTES);
    const body = { data: { contract_address: SUI, price: 'cheap', timestamp: 1 }, filler };
    server.fallback(json(200, body));
    const error = await failure(client.fetchTokenPriceBatch([SUI]));
    expect(error).toBeInstanceOf(InvalidPayloadError);
    const invalid = error as InvalidPayloadError;
    expect(invalid.body).toBe(JSON.stringify(body));
    expect(invalid.bodyTruncated).toBe(false);
    expect(invalid.issues).toContain('data: ');
    expect(invalid).toMatchObject({ retryable: false, status: 200 });
    expect(server.requests).toHaveLength(1);
  });

  it('stops at once when the caller aborts during a backoff', async () => {
    server.fallback(text(503, ''));
    const controller = new AbortController();
    const call = client.fetchProtocols({ signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('shutting down'));
    await expect(call).rejects.toThrow('shutting down');
    const sent = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests.length).toBe(sent);
  });

  it('logs each request at debug level without the key', async () => {
    logLines.length = 0;
    server.script(text(500, API_KEY));
    await client.fetchProtocols();
    const entries = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = entries.filter((entry) => entry.msg === 'upstream request');
    expect(requests.map((entry) => [entry.status, entry.attempt])).toEqual([
      [500, 1],
      [200, 2],
    ]);
    expect(requests[0]).toMatchObject({ level: 20, operation: 'protocols', url: '/v2/defi/protocols' });
    expect(typeof requests[0]!.durationMs).toBe('number');
  });
});
