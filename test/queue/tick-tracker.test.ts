import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTickTracker } from '../../src/queue/tick-tracker.ts';
import { createTestRedis } from '../support/redis.ts';

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
    expect(await tracker.progress('positions', tick)).toEqual({
      expected: 3,
      finished: 2,
      superseded: 0,
      complete: false,
    });
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
    expect(await tracker.progress('backfill', tick)).toEqual({
      expected: 1,
      finished: 0,
      superseded: 0,
      complete: false,
    });
    expect(await tracker.finish('backfill', tick, 'x')).toBe(true);
  });

  it('waits for jobs a second producer adds to a finished tick', async () => {
    const later = new Date('2026-11-21T13:00:00Z');
    await tracker.expect('prices', later, ['p1']);
    expect(await tracker.finish('prices', later, 'p1')).toBe(true);
    expect(await tracker.expect('prices', later, ['p1', 'p2'])).toBe(false);
    expect(await tracker.progress('prices', later)).toEqual({
      expected: 2,
      finished: 1,
      superseded: 0,
      complete: false,
    });
    expect(await tracker.finish('prices', later, 'p2')).toBe(true); // complete again, with the new job's data
  });

  it('supersedes pending jobs only, once, and completes the tick with them', async () => {
    const slot = new Date('2026-11-21T14:00:00Z');
    await tracker.expect('positions', slot, ['s1', 's2', 's3']);
    expect(await tracker.finish('positions', slot, 's1')).toBe(false);
    // s1 already ran: it stays succeeded; s2 is superseded; the tick still waits for s3.
    expect(await tracker.supersede('positions', slot, ['s1', 's2'])).toEqual({ superseded: ['s2'], completed: false });
    expect(await tracker.progress('positions', slot)).toEqual({
      expected: 3,
      finished: 2,
      superseded: 1,
      complete: false,
    });
    // Two producers superseding the same jobs at once: one of them completes the tick.
    const results = await Promise.all([
      tracker.supersede('positions', slot, ['s3']),
      tracker.supersede('positions', slot, ['s3']),
    ]);
    expect(results.map((result) => result.superseded).flat()).toEqual(['s3']);
    expect(results.filter((result) => result.completed)).toHaveLength(1);
    expect(await tracker.progress('positions', slot)).toEqual({
      expected: 3,
      finished: 3,
      superseded: 2,
      complete: true,
    });
  });

  it('a superseded job that runs after all (catch-up) reopens the tick and is no longer superseded', async () => {
    const slot = new Date('2026-11-21T15:00:00Z');
    await tracker.expect('prices', slot, ['c1']);
    expect((await tracker.supersede('prices', slot, ['c1'])).completed).toBe(true);
    await tracker.reopen('prices', slot, ['c1']);
    expect(await tracker.progress('prices', slot)).toEqual({
      expected: 1,
      finished: 0,
      superseded: 0,
      complete: false,
    });
    expect(await tracker.finish('prices', slot, 'c1')).toBe(true);
    expect((await tracker.progress('prices', slot)).superseded).toBe(0);
  });
});
