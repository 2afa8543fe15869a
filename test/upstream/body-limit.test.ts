import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOptions, type Options } from '../../src/config/options.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { createUpstreamClient, transportSettings, type UpstreamClient } from '../../src/upstream/client.ts';
import {
  MAX_ERROR_BODY_BYTES,
  OversizedPayloadError,
  TransientError,
  type UpstreamError,
} from '../../src/upstream/errors.ts';
import { createHttpTransport } from '../../src/upstream/http-transport.ts';
import { createSharedRateLimiter } from '../../src/upstream/rate-limiter.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { json, startFaultServer, streamBody, streamedText, text, type FaultServer } from './fault-server.ts';

/**
 * UPSTREAM_MAX_BODY_BYTES through the HTTP transport (the way the commands read answers), against a
 * real HTTP server that streams a body as fast as it is read: an answer past the limit is not read
 * past it, and comes back as its first bytes with the reason.
 */
const API_KEY = 'limit-key-8c2d4e6f';
const ADDRESS = `0x${'a'.repeat(64)}`;
const MiB = 1024 * 1024;
const silent = createLogger({ level: 'silent', pretty: false });

describe('the body size limit', () => {
  let server: FaultServer;
  let client: UpstreamClient;
  let options: Options;
  let testRedis: TestRedis;
  let redis: Redis;

  const open = (settings: Record<string, string | number> = {}) => {
    options = loadOptions({ UPSTREAM_BASE_URL: server.url, UPSTREAM_API_KEY: API_KEY, ...settings }, {});
    const rateLimiter = createSharedRateLimiter({ redis, key: `${testRedis.prefix}:upstream:pace`, rps: 1000 });
    const transport = createHttpTransport(transportSettings(options), rateLimiter);
    client = createUpstreamClient({
      options,
      logger: silent,
      metrics: createMetrics({ defaultMetrics: false }),
      transport,
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
  });
  afterEach(async () => {
    await client.close();
  });
  afterAll(async () => {
    await server.close();
    redis.disconnect();
    await testRedis.cleanup();
  });

  async function oversized(promise: Promise<unknown>): Promise<OversizedPayloadError> {
    const error = await promise.then(
      () => expect.fail('expected the call to fail'),
      (error: unknown) => error,
    );
    expect(error).toBeInstanceOf(OversizedPayloadError);
    return error as OversizedPayloadError;
  }

  it('a 100 MB answer: read to 8 MiB (the default) and no further, its first 64 KiB kept, not retried', async () => {
    open();
    expect(options.UPSTREAM_MAX_BODY_BYTES).toBe(8 * MiB);
    const { answer, sent } = streamBody(100 * 1000 * 1000);
    server.fallback(answer);
    const error = await oversized(client.fetchPositions(ADDRESS));
    expect(error).toMatchObject({
      status: 200,
      operation: 'positions',
      retryable: false,
      attempts: 1,
      maxBytes: 8 * MiB,
      bodyTruncated: true,
    });
    expect(error.message).toMatch(
      /answer larger than 8388608 bytes \(UPSTREAM_MAX_BODY_BYTES; reading stopped after \d+ bytes\)/,
    );
    // Read up to the limit and at most one chunk past it.
    expect(error.bytesRead).toBeGreaterThan(8 * MiB);
    expect(error.bytesRead).toBeLessThanOrEqual(8 * MiB + 256 * 1024);
    expect(error.body).toBe(streamedText(MAX_ERROR_BODY_BYTES));
    // The connection was dropped: the server could hand the socket little more than what was read.
    await sent.ended;
    expect(sent.complete).toBe(false);
    expect(sent.written).toBeLessThan(40 * 1000 * 1000);
    expect(server.requests).toHaveLength(1);
  });

  it('an answer that announces more than the limit: only its first bytes are read', async () => {
    open();
    const { answer, sent } = streamBody(100 * 1000 * 1000, { announce: true });
    server.fallback(answer);
    const error = await oversized(client.fetchPositions(ADDRESS));
    expect(error.message).toMatch(
      /answer larger than 8388608 bytes \(UPSTREAM_MAX_BODY_BYTES; 100000000 bytes announced\)/,
    );
    expect(error.bytesRead).toBeLessThan(MiB);
    expect(error.body).toBe(streamedText(MAX_ERROR_BODY_BYTES));
    await sent.ended;
    expect(sent.complete).toBe(false);
  });

  it('the limit is inclusive: an answer of exactly UPSTREAM_MAX_BODY_BYTES is read, one byte more is not', async () => {
    open({ UPSTREAM_MAX_BODY_BYTES: 2048 });
    const body = (bytes: number) => {
      const start = '{"data":[],"padding":"';
      return `${start}${'x'.repeat(bytes - start.length - 2)}"}`;
    };
    server.script(text(200, body(2048)), text(200, body(2049)));
    await expect(client.fetchPositions(ADDRESS)).resolves.toMatchObject({ status: 200, body: body(2048) });
    const error = await oversized(client.fetchPositions(ADDRESS));
    // Below 64 KiB, the prefix kept is the limit itself.
    expect(error.body).toBe(body(2049).slice(0, 2048));
    expect(error.bytesRead).toBe(2049);
  });

  it('an error status with a huge body is classified by its status, on its first bytes', async () => {
    open({ UPSTREAM_MAX_RETRIES: 0 });
    server.fallback(streamBody(50 * MiB, { status: 503 }).answer);
    const error = await client.fetchProtocols().then(
      () => expect.fail('expected the call to fail'),
      (error: unknown) => error,
    );
    expect(error).toBeInstanceOf(TransientError);
    expect((error as UpstreamError).body).toBe(streamedText(MAX_ERROR_BODY_BYTES));
  });

  it('the key is scrubbed before the first bytes are cut: none of it is left at the end', async () => {
    open({ UPSTREAM_MAX_BODY_BYTES: 1024 });
    // The key starts 4 bytes before the cut: cut first, its first 4 characters would be kept.
    const body = `${'y'.repeat(1020)}${API_KEY}${'z'.repeat(2000)}`;
    server.fallback(text(200, body));
    const error = await oversized(client.fetchPositions(ADDRESS));
    expect(error.body).toBe(`${'y'.repeat(1020)}[red`);
    expect(error.body).not.toContain(API_KEY.slice(0, 4));
  });
});
