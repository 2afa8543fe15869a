import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedRateLimiter, type RateLimiter } from '../../src/upstream/rate-limiter.ts';
import { maxInWindow } from '../support/max-in-window.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';

/** Runs `count` acquires spread over the limiters at once; resolves to each one's start time. */
async function acquireMany(limiters: RateLimiter[], count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await limiters[i % limiters.length]!.acquire();
      return performance.now();
    }),
  );
}

describe('shared rate limiter (Redis)', () => {
  let testRedis: TestRedis;
  let first: Redis;
  let second: Redis;
  let keyCount = 0;
  /** Two limiters on one budget through two connections, as two worker processes would have. */
  const twoProcesses = (rps: number) => {
    const key = `${testRedis.prefix}:upstream:pace:${++keyCount}`;
    return [createSharedRateLimiter({ redis: first, key, rps }), createSharedRateLimiter({ redis: second, key, rps })];
  };

  beforeAll(() => {
    testRedis = createTestRedis();
    first = new Redis(testRedis.url);
    second = new Redis(testRedis.url);
  });
  afterAll(async () => {
    first.disconnect();
    second.disconnect();
    await testRedis.cleanup();
  });

  it('keeps the combined starts of two processes at rps, evenly spaced', async () => {
    const rps = 10;
    const starts = await acquireMany(twoProcesses(rps), 40);
    const span = Math.max(...starts) - Math.min(...starts);
    // 40 starts 100 ms apart span 3.9 s; never less, whatever the load.
    expect(span).toBeGreaterThanOrEqual(3_850);
    expect(maxInWindow(starts, 1000)).toBeLessThanOrEqual(rps + 1);
  });

  it('paces a high rate (200/s, 5 ms apart) without letting a burst through', async () => {
    const starts = await acquireMany(twoProcesses(200), 401);
    const span = Math.max(...starts) - Math.min(...starts);
    // 401 starts 5 ms apart take 2 s.
    expect(span).toBeGreaterThanOrEqual(1_950);
  });

  it('pause() from one process holds back the other, including starts it had already booked', async () => {
    const [a, b] = twoProcesses(10);
    const booked = Array.from({ length: 6 }, () => a!.acquire().then(() => performance.now()));
    await booked[0];
    const pausedAt = performance.now();
    await b!.pause(600, 'test');
    const starts = await Promise.all(booked);
    const afterPause = starts.filter((start) => start > pausedAt);
    // Every start still pending when the pause began waited it out.
    expect(afterPause.length).toBeGreaterThanOrEqual(5);
    for (const start of afterPause) expect(start - pausedAt).toBeGreaterThanOrEqual(600);
    await b!.acquire();
    expect(performance.now() - pausedAt).toBeGreaterThanOrEqual(600);
  });

  it('a shorter pause never shortens a longer one', async () => {
    const [a, b] = twoProcesses(100);
    const pausedAt = performance.now();
    await a!.pause(500, 'test');
    await b!.pause(10, 'test');
    await b!.acquire();
    expect(performance.now() - pausedAt).toBeGreaterThanOrEqual(500);
  });

  it('stops waiting when the signal is aborted', async () => {
    const [a] = twoProcesses(10);
    await a!.pause(60_000, 'test');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(a!.acquire(controller.signal)).rejects.toThrow('shutting down');
  });

  it('rejects a rate that is not positive', () => {
    expect(() => createSharedRateLimiter({ redis: first, key: 'unused', rps: 0 })).toThrow(RangeError);
  });

  it('keeps microsecond precision in Redis', async () => {
    const key = `${testRedis.prefix}:upstream:pace:precision`;
    const limiter = createSharedRateLimiter({ redis: first, key, rps: 200 });
    await limiter.acquire();
    const tat = await first.hget(key, 'tat');
    expect(tat).toMatch(/^\d{16}$/);
  });
});
