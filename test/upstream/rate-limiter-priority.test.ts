import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACING_MARGIN, createSharedRateLimiter, type RateLimiter } from '../../src/upstream/rate-limiter.ts';
import { maxInWindow } from '../support/max-in-window.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';

/**
 * Who gets a start: the waiter of the lowest priority number at the moment it comes due, first
 * come first served among equals, with the pacing unchanged. At 20/s (a start every 52 ms), so that
 * every waiter below is still waiting when the first start comes due.
 */
const RPS = 20;
const INTERVAL_MS = ((1 + PACING_MARGIN) * 1000) / RPS;

/** Waiter indices sorted by priority, then by index (the order they asked in). */
function priorityOrder(priorities: Map<number, number>): number[] {
  return [...priorities.keys()].sort((a, b) => priorities.get(a)! - priorities.get(b)! || a - b);
}

/** Rejects with a clear message when `promise` is not settled within `ms` (a waiter left stuck). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Grants in the order they came: each waiter's index and when it was granted. */
interface Granted {
  order: number[];
  times: number[];
}

/** Asks for a start as waiter `index`; records the grant. */
function ask(
  limiter: RateLimiter,
  granted: Granted,
  index: number,
  priority: number,
  signal?: AbortSignal,
): Promise<void> {
  return limiter.acquire(signal, priority).then(() => {
    granted.order.push(index);
    granted.times.push(performance.now());
  });
}

describe('start order by priority', () => {
  const makeLimiter = (rps = RPS) => createShared(rps);
  it('grants starts in priority order, first come first served within a priority, paced as before', async () => {
    const limiter = makeLimiter();
    const granted: Granted = { order: [], times: [] };
    // Four priorities, interleaved, all asking at once.
    const priorities = new Map(Array.from({ length: 40 }, (_, i) => [i, (i * 7) % 4] as const));
    await Promise.all([...priorities].map(([i, priority]) => ask(limiter, granted, i, priority)));
    expect(granted.order).toEqual(priorityOrder(priorities));
    // The pacing of equal priorities: 40 starts 51.25 ms apart span 2 s, at most 20 in a second.
    expect(Math.max(...granted.times) - Math.min(...granted.times)).toBeGreaterThanOrEqual(39 * INTERVAL_MS - 50);
    expect(maxInWindow(granted.times, 1000)).toBeLessThanOrEqual(RPS);
  });

  it('a waiter that asks later with a lower number gets the next start, ahead of those already waiting', async () => {
    const limiter = makeLimiter();
    const granted: Granted = { order: [], times: [] };
    const waiting = Array.from({ length: 20 }, (_, i) => ask(limiter, granted, i, 2));
    await new Promise((resolve) => setTimeout(resolve, 6 * INTERVAL_MS));
    const before = granted.order.length;
    // Asked in the order 20..25: two of priority 1 first, then four of priority 0.
    const later = [1, 1, 0, 0, 0, 0].map((priority, i) => ask(limiter, granted, 20 + i, priority));
    await Promise.all([...waiting, ...later]);
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(15);
    expect(granted.order).toEqual([
      ...Array.from({ length: before }, (_, i) => i),
      22,
      23,
      24,
      25,
      20,
      21,
      ...Array.from({ length: 20 - before }, (_, i) => before + i),
    ]);
  });

  it('aborted waiters lose at most their own starts, leave nobody stuck, and a served waiter aborts nothing', async () => {
    const limiter = makeLimiter();
    const granted: Granted = { order: [], times: [] };
    const priorities = new Map(Array.from({ length: 30 }, (_, i) => [i, i % 3] as const));
    const controllers = [...priorities.keys()].map(() => new AbortController());
    const asked = performance.now();
    const outcomes = [...priorities].map(([i, priority]) =>
      ask(limiter, granted, i, priority, controllers[i]!.signal).then(
        () => {
          // A signal aborted once its waiter is served (the request it started gave up) changes nothing.
          controllers[i]!.abort(new Error('done with it'));
          return 'granted';
        },
        (error: unknown) => (error as Error).message,
      ),
    );
    // Five at once before any start (the head among them), five more while the others wait.
    const abortedFirst = [0, 3, 7, 12, 29];
    const abortedLater = [1, 4, 11, 20, 26];
    for (const i of abortedFirst) controllers[i]!.abort(new Error('gave up'));
    await new Promise((resolve) => setTimeout(resolve, 4 * INTERVAL_MS));
    expect(granted.order.some((i) => abortedLater.includes(i))).toBe(false);
    for (const i of abortedLater) controllers[i]!.abort(new Error('gave up'));

    const results = await within(Promise.all(outcomes), 5_000, 'the waiters left');
    const aborted = new Set([...abortedFirst, ...abortedLater]);
    expect(results).toEqual([...priorities.keys()].map((i) => (aborted.has(i) ? 'gave up' : 'granted')));
    expect(granted.order).toEqual(priorityOrder(priorities).filter((i) => !aborted.has(i)));
    // The 20 served took the first 20 starts (19 intervals after asking): the starts given up were
    // the latest booked, not the aborted waiters' own (the last served would wait 29 intervals).
    const lastServed = Math.max(...granted.times) - asked;
    expect(lastServed).toBeGreaterThanOrEqual(19 * INTERVAL_MS - 50);
    expect(lastServed).toBeLessThan(24 * INTERVAL_MS);
    expect(maxInWindow(granted.times, 1000)).toBeLessThanOrEqual(RPS);
    // Nothing was left booked for nobody, nor anybody without a booking: one more waiter is served.
    await within(limiter.acquire(undefined, 5), 30 * INTERVAL_MS, 'a waiter after the aborts');
  });

  it('a waiter aborted while every start is held back by a pause leaves the others theirs', async () => {
    // Slow, so that the first two starts after the pause and the last two lie far apart, however
    // late a loaded machine's timers fire: a start every SLOW_INTERVAL_MS.
    const slowRps = 4;
    const SLOW_INTERVAL_MS = ((1 + PACING_MARGIN) * 1000) / slowRps;
    const limiter = makeLimiter(slowRps);
    const granted: Granted = { order: [], times: [] };
    const pausedAt = performance.now();
    await limiter.pause(300, 'test');
    const controllers = Array.from({ length: 6 }, () => new AbortController());
    const outcomes = controllers.map((controller, i) =>
      ask(limiter, granted, i, 0, controller.signal).catch((error: unknown) => (error as Error).message),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const i of [0, 1, 2, 3]) controllers[i]!.abort(new Error('gave up'));
    const results = await within(Promise.all(outcomes), 5_000, 'the waiters left');
    expect(results).toEqual(['gave up', 'gave up', 'gave up', 'gave up', undefined, undefined]);
    expect(granted.order).toEqual([4, 5]);
    // The first two starts after the pause (the four given up were the latest booked): the second
    // at pause + 1 interval, where keeping the aborted ones' earlier slots would give pause + 5.
    for (const time of granted.times) expect(time - pausedAt).toBeGreaterThanOrEqual(300);
    expect(granted.times[1]! - pausedAt).toBeLessThan(300 + 3 * SLOW_INTERVAL_MS);
  });
});

let testRedis: TestRedis;
let redis: Redis;
let budgets = 0;

/** A limiter on a budget of its own, under this file's key prefix. */
function createShared(rps: number): RateLimiter {
  return createSharedRateLimiter({ redis, key: `${testRedis.prefix}:upstream:pace:priority-${++budgets}`, rps });
}

beforeAll(() => {
  testRedis = createTestRedis();
  redis = new Redis(testRedis.url);
});
afterAll(async () => {
  redis.disconnect();
  await testRedis.cleanup();
});
