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
import { createSharedRateLimiter, readPause } from '../../src/upstream/rate-limiter.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { hang, json, reset, stallBody, startFaultServer, text, type Answer, type FaultServer } from './fault-server.ts';

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
  let budgetKey: string;
  /** A client on a budget of its own (so a pause in one test never holds up the next), with `overrides`. */
  const open = (overrides: Record<string, string | number> = {}) => {
    // No `secrets` on purpose: the logger's own scrubbing must not be what keeps the key out.
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'debug', destination });
    const options = loadOptions(
      {
        UPSTREAM_BASE_URL: server.url,
        UPSTREAM_API_KEY: API_KEY,
        UPSTREAM_TIMEOUT_MS: 300,
        UPSTREAM_MAX_RETRIES: 2,
        ...overrides,
      },
      {},
    );
    budgetKey = `${testRedis.prefix}:upstream:pace:${++limiterCount}`;
    const rateLimiter = createSharedRateLimiter({ redis, key: budgetKey, rps: 500 });
    return createUpstreamClient({
      options,
      logger,
      metrics,
      transport: createHttpTransport(transportSettings(options), rateLimiter),
    });
  };

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
    client = open();
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

  it('429: pauses the shared budget once for Retry-After and goes to the caller with its end, not retried', async () => {
    server.script(text(429, 'slow down', { 'retry-after': '1' }));
    const before = Date.now();
    const error = await failure(client.fetchProtocols());
    expect(error).toBeInstanceOf(RateLimitedError);
    const { resumeAt } = error as RateLimitedError;
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 1000, attempts: 1 });
    expect(resumeAt.getTime()).toBeGreaterThanOrEqual(before + 1000 - 50);
    expect(resumeAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000 + 50);
    expect(server.requests).toHaveLength(1);
    expect(await counter('upstreamRateLimited', { operation: 'protocols' })).toBe(1);
    expect(await counter('upstreamRetries', { operation: 'protocols' })).toBe(0);
    // The pause is visible with its end and reason while it lasts.
    expect(await readPause(redis, budgetKey)).toEqual({
      until: resumeAt,
      reason: 'HTTP 429 (protocols): Retry-After 1 s',
    });
    // The next request of any process waits for the end.
    await client.fetchProtocols();
    const [first, second] = server.requests;
    expect(second!.arrivedAt - first!.arrivedAt).toBeGreaterThanOrEqual(950);
    expect(await readPause(redis, budgetKey)).toBeUndefined();
  });

  it('429 without a readable Retry-After: a pause of 1 s', async () => {
    server.script(text(429, '', { 'retry-after': 'soon' }));
    const error = await failure(client.fetchProtocols());
    expect(error).toMatchObject({ retryAfterMs: 1000 });
  });

  describe('a Retry-After past UPSTREAM_MAX_PAUSE_MS', () => {
    const tenYears = new Date(Date.now() + 10 * 365.25 * 86_400_000).toUTCString();
    it.each([
      ['86400 (a day)', '86400', 86_400_000],
      ['3000000 (past what a timer holds)', '3000000', 3_000_000_000],
      ['an HTTP date ten years ahead', tenYears, 9.9 * 365 * 86_400_000],
    ])(
      '%s: the pause ends at the cap, said in a warning once, and a healthy service is reached after it',
      async (_name, header, askedMs) => {
        logLines.length = 0;
        await client.close();
        client = open({ UPSTREAM_MAX_PAUSE_MS: 1500 });
        // Answered late, so that both requests below are in flight when the first 429 comes.
        const late429: Answer = (res, req) =>
          void setTimeout(() => text(429, '', { 'retry-after': header })(res, req), 150);
        server.script(late429, late429);
        const before = Date.now();
        // Two requests in flight meet the 429 together: one pause, one warning.
        const errors = (await Promise.all([
          failure(client.fetchProtocols()),
          failure(client.fetchProtocols()),
        ])) as RateLimitedError[];
        for (const error of errors) {
          expect(error.retryAfterMs).toBeGreaterThanOrEqual(askedMs);
          expect(error.resumeAt.getTime() - before).toBeLessThanOrEqual(1500 + 400);
        }
        const pause = await readPause(redis, budgetKey);
        expect(pause?.reason).toMatch(
          /^HTTP 429 \(protocols\): Retry-After [\d,]+ s, capped at 1\.5 s \(UPSTREAM_MAX_PAUSE_MS\)$/,
        );
        const warnings = logLines
          .map((line) => JSON.parse(line) as { level: string; msg: string })
          .filter((entry) => entry.level === 'warn');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!.msg).toMatch(/longer than UPSTREAM_MAX_PAUSE_MS/);
        // The service is healthy now: the next request goes out once the (capped) pause is over.
        const response = await client.fetchProtocols({ signal: AbortSignal.timeout(5_000) });
        expect(response.status).toBe(200);
        expect(Date.now() - before).toBeLessThan(1500 + 1200);
      },
    );
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
    expect(requests[0]).toMatchObject({ level: 'debug', operation: 'protocols', url: '/v2/defi/protocols' });
    expect(typeof requests[0]!.durationMs).toBe('number');
  });
});
