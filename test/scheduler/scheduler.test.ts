import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedTokens } from '../../src/db/index.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.js';

let harness: PipelineHarness;
let redis: Redis;

beforeAll(async () => {
  harness = await createPipelineHarness({ options: { CATCHUP_MAX_SLOTS: '3' } });
  redis = new Redis(harness.redis.url);
  await addWatchedTokens(harness.database, ['0x2::sui::SUI']);
});
afterAll(async () => {
  redis?.disconnect();
  await harness?.close();
});

describe('scheduler', () => {
  it('catches up the missed price slots, at most CATCHUP_MAX_SLOTS, as prices at those times', async () => {
    const now = new Date('2026-11-21T12:10:30Z');
    // The last slot a scheduler produced was 12:00; it was down until 12:10:30.
    await redis.set(
      `${harness.options.QUEUE_PREFIX}:scheduler:last-price-slot`,
      String(Date.parse('2026-11-21T12:00:00Z')),
    );
    const scheduler = createScheduler({
      context: harness.context,
      database: harness.database,
      queues: harness.queues,
      tracker: harness.tracker,
      redis,
      now: () => now,
    });
    await scheduler.start();
    await scheduler.stop();
    const jobs = await harness.queues.prices.getJobs(['wait', 'delayed', 'active', 'completed']);
    const caughtUp = jobs
      .filter((job) => job.data.at)
      .map((job) => [job.data.tick, job.data.at])
      .sort();
    // 12:01..12:09 were missed; the newest three are enqueued; 12:10 is the cron's own slot.
    expect(caughtUp).toEqual([
      ['2026-11-21T12:07:00.000Z', '2026-11-21T12:07:00.000Z'],
      ['2026-11-21T12:08:00.000Z', '2026-11-21T12:08:00.000Z'],
      ['2026-11-21T12:09:00.000Z', '2026-11-21T12:09:00.000Z'],
    ]);
    expect(Number(await redis.get(`${harness.options.QUEUE_PREFIX}:scheduler:last-price-slot`))).toBe(
      Date.parse('2026-11-21T12:09:00Z'),
    );

    // A second scheduler starting at the same moment finds nothing more to catch up.
    const second = createScheduler({
      context: harness.context,
      database: harness.database,
      queues: harness.queues,
      tracker: harness.tracker,
      redis,
      now: () => now,
    });
    await second.start();
    await second.stop();
    const after = await harness.queues.prices.getJobs(['wait', 'delayed', 'active', 'completed']);
    expect(after.filter((job) => job.data.at)).toHaveLength(3);
  });
});
