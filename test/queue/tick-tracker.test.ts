import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTickTracker } from '../../src/queue/tick-tracker.js';
import { createTestRedis } from '../support/redis.js';

const testRedis = createTestRedis();
const redis = new Redis(testRedis.url);
afterAll(async () => {
  redis.disconnect();
  await testRedis.cleanup();
});

describe('tick tracker (real Redis)', () => {
  const tracker = createTickTracker(redis, testRedis.prefix);
  const tick = new Date('2026-11-21T12:00:00Z');

  it('completes a tick exactly once, however often a job finishes', async () => {
    expect(await tracker.expect('positions', tick, ['a', 'b', 'c'])).toBe(false);
    expect(await tracker.finish('positions', tick, 'a')).toBe(false);
    expect(await tracker.finish('positions', tick, 'a')).toBe(false); // a re-run counts once
    expect(await tracker.finish('positions', tick, 'b')).toBe(false);
    expect(await tracker.progress('positions', tick)).toEqual({ expected: 3, finished: 2, complete: false });
    const results = await Promise.all([tracker.finish('positions', tick, 'c'), tracker.finish('positions', tick, 'c')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await tracker.finish('positions', tick, 'a')).toBe(false);
    expect((await tracker.progress('positions', tick)).complete).toBe(true);
  });

  it('completes an empty tick when it is expected, and a second producer changes nothing', async () => {
    expect(await tracker.expect('nfts', tick, [])).toBe(true);
    expect(await tracker.expect('nfts', tick, [])).toBe(false);
  });

  it('keeps streams and ticks apart, and reopens a retried job', async () => {
    await tracker.expect('backfill', tick, ['x']);
    expect(await tracker.finish('backfill', tick, 'x')).toBe(true);
    expect((await tracker.progress('prices', tick)).complete).toBe(false);
    await tracker.reopen('backfill', tick, ['x']);
    expect(await tracker.progress('backfill', tick)).toEqual({ expected: 1, finished: 0, complete: false });
    expect(await tracker.finish('backfill', tick, 'x')).toBe(true);
  });

  it('waits for jobs a second producer adds to a finished tick', async () => {
    const later = new Date('2026-11-21T13:00:00Z');
    await tracker.expect('prices', later, ['p1']);
    expect(await tracker.finish('prices', later, 'p1')).toBe(true);
    expect(await tracker.expect('prices', later, ['p1', 'p2'])).toBe(false);
    expect(await tracker.progress('prices', later)).toEqual({ expected: 2, finished: 1, complete: false });
    expect(await tracker.finish('prices', later, 'p2')).toBe(true); // complete again, with the new job's data
  });
});
