import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOptions, type OptionsInput } from '../../src/config/options.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.ts';
import { createUpstreamClient, transportSettings, type UpstreamClient } from '../../src/upstream/client.ts';
import {
  AuthError,
  InvalidPayloadError,
  RateLimitedError,
  TransientError,
  UpstreamError,
} from '../../src/upstream/errors.ts';
import { createHttpTransport } from '../../src/upstream/http-transport.ts';
import { createSharedRateLimiter } from '../../src/upstream/rate-limiter.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';
import { coin } from '../support/coins.ts';

/** The client against the simulated upstream over real HTTP, with the shared limiter on real Redis. */
const API_KEY = 'simulator-key-7d1e0b';
const owner = `0x${'5c'.repeat(32)}`;

describe('upstream client against the simulator', () => {
  let simulator: RunningSimulator;
  let testRedis: TestRedis;
  let redis: Redis;
  let keyCount = 0;
  const clients: UpstreamClient[] = [];

  const makeClient = (
    overrides: Partial<Record<keyof OptionsInput, string | number>> = {},
    rps = 1000,
    budget = `${++keyCount}`,
  ) => {
    const options = loadOptions(
      { UPSTREAM_BASE_URL: simulator.url, UPSTREAM_API_KEY: API_KEY, UPSTREAM_TIMEOUT_MS: 500, ...overrides },
      {},
    );
    const client = createUpstreamClient({
      options,
      logger: createLogger({ level: 'silent', pretty: false }),
      metrics: createMetrics({ defaultMetrics: false }),
      transport: createHttpTransport(
        transportSettings(options),
        createSharedRateLimiter({ redis, key: `${testRedis.prefix}:upstream:pace:${budget}`, rps }),
      ),
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: API_KEY, faultSeed: 42 });
    testRedis = createTestRedis();
    redis = new Redis(testRedis.url);
  });
  beforeEach(() => {
    simulator.setFaults({
      error5xxRate: 0,
      error429Rate: 0,
      malformedRate: 0,
      timeoutRate: 0,
      rateLimit: 0,
      rateLimitWindow: 'sliding',
      retryAfterSeconds: 1,
    });
    simulator.resetStats();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    await simulator.close();
    redis.disconnect();
    await testRedis.cleanup();
  });

  it('fetches a batch of 50 prices, duplicates in another spelling once, every answer valid', async () => {
    const client = makeClient();
    const coinTypes = Array.from({ length: 50 }, (_, i) => coin(i + 1));
    const response = await client.fetchTokenPriceBatch([
      ...coinTypes,
      ...coinTypes.slice(0, 10).map((type) => type.replace(/^0x0+/, '0x')),
    ]);
    expect(simulator.stats().byOperation).toEqual({ prices: 1 });
    const answered = response.data.data.map((entry) => (entry as { contract_address: string }).contract_address);
    expect(new Set(answered).size).toBe(50);
  });

  it('fetches positions, NFT holdings and protocols, all valid against the wire schemas', async () => {
    const client = makeClient();
    const positions = await client.fetchPositions(owner, { forceRefresh: true });
    expect(positions.data.data.length).toBeGreaterThan(0);
    expect(JSON.parse(positions.body)).toHaveProperty('data');
    const nfts = await client.fetchNftHoldings(owner, { chain: 'ALL', includePnl: true });
    expect(nfts.data.length).toBeGreaterThan(0);
    const protocols = await client.fetchProtocols();
    expect(protocols.data.length).toBeGreaterThan(0);
    const stats = simulator.stats();
    expect(stats.byStatus).toEqual({ 200: 3 });
    expect(stats.apiKeysSeen).toBe(1);
  });

  it('a wrong key: AuthError, one request, the key in no message', async () => {
    const client = makeClient({ UPSTREAM_API_KEY: 'not-the-right-key-1234' });
    const error = await client.fetchProtocols().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthError);
    expect(String(error)).not.toContain('not-the-right-key-1234');
    expect(simulator.stats().requests).toBe(1);
  });

  it('5xx and timeouts: retried up to UPSTREAM_MAX_RETRIES, then TransientError', async () => {
    const client = makeClient({ UPSTREAM_MAX_RETRIES: 2, UPSTREAM_TIMEOUT_MS: 200 });
    simulator.setFaults({ error5xxRate: 1 });
    await expect(client.fetchProtocols()).rejects.toMatchObject({ reason: 'server_error', attempts: 3 });
    expect(simulator.stats().requests).toBe(3);
    simulator.setFaults({ error5xxRate: 0, timeoutRate: 1 });
    simulator.resetStats();
    await expect(client.fetchPositions(owner)).rejects.toMatchObject({ reason: 'timeout', attempts: 3 });
    expect(simulator.stats().requests).toBe(3);
  });

  it('malformed 200s: not JSON is retried, the wrong shape is InvalidPayloadError', async () => {
    const client = makeClient({ UPSTREAM_MAX_RETRIES: 1 });
    simulator.setFaults({ malformedRate: 1 });
    const kinds = new Set<string>();
    let attempts = 0;
    for (let i = 0; i < 16; i++) {
      const error = await client.fetchTokenPriceBatch([coin(i + 1)]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UpstreamError);
      const upstreamError = error as UpstreamError;
      attempts += upstreamError.attempts;
      kinds.add(upstreamError.name);
      if (upstreamError instanceof InvalidPayloadError) {
        expect(() => JSON.parse(upstreamError.body)).not.toThrow();
      } else {
        // Not JSON twice in a row: the first retry was spent.
        expect(upstreamError).toBeInstanceOf(TransientError);
        expect(upstreamError).toMatchObject({ reason: 'invalid_json', attempts: 2 });
      }
    }
    expect(kinds).toEqual(new Set(['InvalidPayloadError', 'TransientError']));
    expect(simulator.stats().requests).toBe(attempts);
  });

  it('a 429 from the upstream: RateLimitedError, and the next request waits out Retry-After', async () => {
    const client = makeClient();
    simulator.setFaults({ error429Rate: 1, retryAfterSeconds: 1 });
    const started = performance.now();
    const error = await client.fetchProtocols().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: 1000, attempts: 1 });
    simulator.setFaults({ error429Rate: 0 });
    const response = await client.fetchProtocols();
    expect(response.attempts).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it.each(['sliding', 'closed', 'fixed'] as const)(
    'two clients on one budget stay within a %s-window upstream limit of the same rate',
    async (rateLimitWindow) => {
      const rps = 20;
      simulator.setFaults({ rateLimit: rps, rateLimitWindowMs: 1000, rateLimitWindow });
      const pair = [makeClient({}, rps, `pair-${rateLimitWindow}`), makeClient({}, rps, `pair-${rateLimitWindow}`)];
      const started = performance.now();
      await Promise.all(Array.from({ length: 60 }, (_, i) => pair[i % 2]!.fetchProtocols()));
      expect(performance.now() - started).toBeGreaterThanOrEqual(2_900);
      const stats = simulator.stats();
      expect(stats.byStatus).toEqual({ '200': 60 });
      expect(stats.maxInTrailingSecond).toBeLessThanOrEqual(rps);
    },
  );
});
