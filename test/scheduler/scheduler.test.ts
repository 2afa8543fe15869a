import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { createScheduler } from '../../src/scheduler/scheduler.ts';
import { systemClock } from '../../src/scheduler/scheduler-clock.ts';
import { createPipelineHarness, type PipelineHarness } from '../support/pipeline.ts';
import { lastPriceSlotKey, priceGapsKey } from '../../src/queue/redis-keys.ts';

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
  it('records the missed price slots as gaps, at most CATCHUP_MAX_SLOTS, and fills them one slot at a time', async () => {
    const now = new Date('2026-11-21T12:10:30Z');
    const prefix = harness.options.QUEUE_PREFIX;
    // The last slot a scheduler produced was 12:00; it was down until 12:10:30.
    await redis.set(lastPriceSlotKey(prefix), String(Date.parse('2026-11-21T12:00:00Z')));
    const deps = {
      context: harness.context,
      database: harness.database,
      queues: harness.queues,
      tracker: harness.tracker,
      redis,
      clock: { ...systemClock, now: () => now },
    };
    const scheduler = createScheduler(deps);
    await scheduler.start();
    await scheduler.stop();
    // 12:01..12:09 were missed; the newest three are kept; 12:10 is the cron's own slot.
    const caughtUp = async () =>
      (await harness.queues['price-catch-up'].getJobs(['prioritized', 'wait', 'delayed', 'active', 'completed']))
        .map((job) => [job.data.tick, job.data.at])
        .sort();
    expect(await caughtUp()).toEqual([['2026-11-21T12:09:00.000Z', '2026-11-21T12:09:00.000Z']]);
    expect((await redis.zrange(priceGapsKey(prefix), '0', '-1')).map((member) => Number(member))).toEqual([
      Date.parse('2026-11-21T12:07:00Z'),
      Date.parse('2026-11-21T12:08:00Z'),
    ]);
    expect(Number(await redis.get(lastPriceSlotKey(prefix)))).toBe(Date.parse('2026-11-21T12:09:00Z'));
    // Nothing reaches the current prices queue, and the catch-up counts towards the slot's prices tick.
    expect(await harness.queues.prices.getJobs(['prioritized', 'wait', 'delayed', 'active', 'completed'])).toEqual([]);
    expect(await harness.tracker.progress('prices', new Date('2026-11-21T12:09:00Z'))).toMatchObject({
      expected: 1,
      finished: 0,
    });

    // A second scheduler starting at the same moment finds nothing more to catch up, and does not
    // start the next gap while the first is unfinished.
    const second = createScheduler(deps);
    await second.start();
    await second.stop();
    expect(await caughtUp()).toHaveLength(1);
    expect(await redis.zcard(priceGapsKey(prefix))).toBe(2);
  });
});

describe('scheduler and the quota', () => {
  /** The scheduler's start on 50 addresses at `rate`, positions every minute: its first log line of `level`. */
  async function startLine(rate: string, level: string) {
    const small = await createPipelineHarness({ options: { UPSTREAM_RATE: rate, POSITIONS_CRON: '* * * * *' } });
    try {
      const addresses = Array.from({ length: 50 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`);
      await addWatchedAddresses(small.database, addresses, {});
      const scheduler = createScheduler({
        context: small.context,
        database: small.database,
        queues: small.queues,
        tracker: small.tracker,
        redis: small.connection,
        clock: { ...systemClock, now: () => new Date('2026-11-21T12:00:30Z') },
      });
      await scheduler.start();
      await scheduler.stop();
      return small.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.level === level && /quota/.test(String(line.msg)));
    } finally {
      await small.close();
    }
  }

  it('says at start that it refreshes by change rate when every address every slot does not fit', async () => {
    // 50 positions requests a minute and 50 NFT requests an hour against 40 a minute: the max ages fit.
    const line = await startLine('40/min', 'info');
    expect(line?.msg).toMatch(
      /^the quota cannot refresh every address every slot: the slots refresh the addresses where changes are expected/,
    );
    expect(line).toMatchObject({ availablePerHour: 2400 });
  });

  it('warns at start when even the max ages cannot be held, with the plan figures', async () => {
    const warning = await startLine('3/h', 'warn');
    expect(warning?.msg).toMatch(
      /^the watchlist needs [\d,.]+x the upstream quota .*; see `chaintap plan`; refreshing by change rate cannot hold every address within its max age$/,
    );
    expect(warning).toMatchObject({ availablePerHour: 3 });
  });
});
