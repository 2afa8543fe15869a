import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedRateLimiter, type RateLimiter } from '../../src/upstream/rate-limiter.ts';
import { maxInWindow } from '../support/max-in-window.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';

/**
 * `count` acquires at once while the event loop is blocked for `blockMs` once the first second of
 * starts is under way, as a busy worker process would be: the starts booked during the block all
 * come due at once.
 */
async function startsAroundABlockedLoop(limiter: RateLimiter, count: number, blockMs: number): Promise<number[]> {
  const starts: number[] = [];
  const acquires = Array.from({ length: count }, async () => {
    await limiter.acquire();
    starts.push(performance.now());
  });
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const until = performance.now() + blockMs;
  while (performance.now() < until) {
    // busy: no timer fires
  }
  await Promise.all(acquires);
  return starts;
}

describe('starts that come due late (a busy event loop)', () => {
  let testRedis: TestRedis;
  let redis: Redis;
  beforeAll(() => {
    testRedis = createTestRedis();
    redis = new Redis(testRedis.url);
  });
  afterAll(async () => {
    redis.disconnect();
    await testRedis.cleanup();
  });

  it('never put more than rps starts into a trailing second', async () => {
    const rps = 50;
    const limiter = createSharedRateLimiter({ redis, key: `${testRedis.prefix}:upstream:pace:late`, rps });
    const starts = await startsAroundABlockedLoop(limiter, 120, 300);
    expect(starts).toHaveLength(120);
    expect(maxInWindow(starts, 1000)).toBeLessThanOrEqual(rps);
    // The pacing still holds on average: 120 starts at 50 per 1.04 s take at least 2.3 s.
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(2_300);
  });

  it('records a start whose confirmation reached a busy process late at the time it really goes', async () => {
    const key = `${testRedis.prefix}:upstream:pace:late-reply`;
    const limiter = createSharedRateLimiter({ redis, key, rps: 100 });
    const [seconds, micros] = await redis.time();
    const before = Number(seconds) * 1_000_000 + Number(micros);
    const acquired = limiter.acquire();
    // Redis books the start now; its reply waits behind 100 ms of other work.
    const until = performance.now() + 100;
    while (performance.now() < until) {
      // busy
    }
    await acquired;
    const starts = await redis.zrange(`${key}:starts`, '0', '-1', 'WITHSCORES');
    expect(starts).toHaveLength(2);
    expect(Number(starts[1]) - before).toBeGreaterThanOrEqual(90_000);
  });

  it('keeps a fractional rate in a window of whole starts', async () => {
    const limiter = createSharedRateLimiter({ redis, key: `${testRedis.prefix}:upstream:pace:fraction`, rps: 2.5 });
    const starts = await Promise.all(
      Array.from({ length: 6 }, async () => {
        await limiter.acquire();
        return performance.now();
      }),
    );
    // 2.5/s paced (416 ms apart): 6 starts take at least 2 s, at most 3 in any second.
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(2_000);
    expect(maxInWindow(starts, 1000)).toBeLessThanOrEqual(3);
  });
});
