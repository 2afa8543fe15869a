import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { loadOptions } from '../../src/config/options.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { createAnswerBudget, type AnswerLease } from '../../src/upstream/answer-budget.ts';
import { createUpstreamClient, transportSettings } from '../../src/upstream/client.ts';
import { createHttpTransport } from '../../src/upstream/http-transport.ts';
import { createSharedRateLimiter } from '../../src/upstream/rate-limiter.ts';
import { createTestRedis } from '../support/redis.ts';
import { startFaultServer, text } from './fault-server.ts';

/** Whether the promise has settled by the next turn of the event loop. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

it('lets shares in while they fit, the next one waiting for a release, in the order asked', async () => {
  const budget = createAnswerBudget(100);
  const first = await budget.acquire(60);
  const second = budget.acquire(50);
  const third = budget.acquire(10);
  // The small share waits behind the larger one asked before it.
  expect(await settled(second)).toBe(false);
  expect(await settled(third)).toBe(false);
  first.release();
  first.release();
  expect(await settled(second)).toBe(true);
  expect(await settled(third)).toBe(true);
  expect(budget.held()).toBe(60);
  for (const lease of [await second, await third]) lease.release();
  expect(budget.held()).toBe(0);
});

it('gives a share larger than the budget the whole budget, alone', async () => {
  const budget = createAnswerBudget(100);
  const huge = await budget.acquire(1_000);
  expect(budget.held()).toBe(100);
  const small = budget.acquire(1);
  expect(await settled(small)).toBe(false);
  huge.release();
  expect(budget.held()).toBe(1);
  (await small).release();
});

it('drops a waiting share whose signal is aborted, and lets the next one in', async () => {
  const budget = createAnswerBudget(100);
  const first = await budget.acquire(90);
  const controller = new AbortController();
  const aborted = budget.acquire(50, controller.signal);
  const next = budget.acquire(10);
  controller.abort(new Error('shutting down'));
  await expect(aborted).rejects.toThrow('shutting down');
  const lease: AnswerLease = await next;
  expect(budget.held()).toBe(100);
  first.release();
  lease.release();
  expect(budget.held()).toBe(0);
});

it('decodes an answer that does not fit beside the one held only once that one is released', async () => {
  const server = await startFaultServer();
  const testRedis = createTestRedis();
  const redis = new Redis(testRedis.url);
  // A budget of 3 × 65,536 + 400 × 1,000 bytes; each answer (61 KB, 483 values) takes 376 KB of it.
  const options = loadOptions(
    {
      UPSTREAM_BASE_URL: server.url,
      UPSTREAM_API_KEY: 'budget-key',
      UPSTREAM_MAX_BODY_BYTES: 65536,
      UPSTREAM_MAX_ELEMENTS: 1000,
    },
    {},
  );
  const list = Array.from({ length: 120 }, (_, i) => `{"positionId":"p${i}","chain":"SUI","type":"AMM"}`).join(',');
  server.fallback(text(200, `{"pad":"${'x'.repeat(55_000)}","data":[${list}]}`));
  const rateLimiter = createSharedRateLimiter({ redis, key: `${testRedis.prefix}:upstream:pace`, rps: 1000 });
  const client = createUpstreamClient({
    options,
    logger: createLogger({ level: 'silent', pretty: false }),
    metrics: createMetrics({ defaultMetrics: false }),
    transport: createHttpTransport(transportSettings(options), rateLimiter),
  });
  try {
    const calls = [client.fetchPositions(`0x${'1'.repeat(64)}`), client.fetchPositions(`0x${'2'.repeat(64)}`)];
    const first = await Promise.race(calls);
    // Both were answered; the second waits, its bytes not decoded, until the first is given back.
    while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await settled(Promise.all(calls))).toBe(false);
    first.release();
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => answer.data.data.length)).toEqual([120, 120]);
    for (const answer of answers) answer.release();
  } finally {
    await client.close();
    await server.close();
    redis.disconnect();
    await testRedis.cleanup();
  }
});
