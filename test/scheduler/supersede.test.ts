import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens, removeWatchedAddresses } from '../../src/db/index.ts';
import { produceTick, type ProducerDeps } from '../../src/scheduler/producer.ts';
import { SNAPSHOT_CHANNEL } from '../../src/queue/tick-notification.ts';
import { createRedisConnection } from '../../src/runtime/redis-connection.ts';
import { createPipelineHarness, type PipelineHarness, producerDeps } from '../support/pipeline.ts';
import { priceGapsKey, queueKeyPrefix } from '../../src/queue/redis-keys.ts';

// The producer side of "at most one pending job per dataset and target", against real Redis and
// Postgres, with no worker taking jobs unless the test says so.
const ADDRESSES = ['0x' + 'a1'.repeat(32), '0x' + 'b2'.repeat(32), '0x' + 'c3'.repeat(32)];
const T1 = new Date('2026-11-21T12:00:00Z');
const T2 = new Date('2026-11-21T12:15:00Z');
const T3 = new Date('2026-11-21T12:30:00Z');

let harness: PipelineHarness;
let producer: ProducerDeps;
const notifications: unknown[] = [];

beforeAll(async () => {
  harness = await createPipelineHarness();
  producer = producerDeps(harness);
  await addWatchedAddresses(harness.database, ADDRESSES, {});
  await addWatchedTokens(harness.database, ['0x2::sui::SUI']);
  await harness.database.sql.listen(SNAPSHOT_CHANNEL, (payload) => notifications.push(JSON.parse(payload)));
});
afterAll(async () => {
  await harness?.close();
});

const waitingTicks = async (queue: 'positions' | 'prices') =>
  (await harness.queues[queue].getJobs(['wait', 'prioritized', 'delayed']))
    .map((job) => job.data.tick as string)
    .sort();

const runs = (dataset: string, tick: Date) =>
  harness.database.sql<{ target: string; status: string; error: string | null }[]>`
    select target, status, error from ingestion_runs where dataset = ${dataset} and tick = ${tick} order by target`;

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a newer tick supersedes the waiting jobs of the same targets', () => {
  it('replaces waiting jobs, records them, completes and announces the older tick as superseded', async () => {
    expect((await produceTick(producer, 'positions', T1)).superseded).toBe(0);
    expect(await waitingTicks('positions')).toEqual(Array(3).fill(T1.toISOString()));

    const second = await produceTick(producer, 'positions', T2);
    expect(second).toMatchObject({ jobs: 3, superseded: 3 });
    expect(await waitingTicks('positions')).toEqual(Array(3).fill(T2.toISOString()));
    expect(await runs('positions', T1)).toEqual(
      [...ADDRESSES].sort().map((target) => ({
        target,
        status: 'superseded',
        error: `superseded by the tick ${T2.toISOString()}`,
      })),
    );
    expect(await harness.tracker.progress('positions', T1)).toEqual({
      expected: 3,
      finished: 3,
      superseded: 3,
      complete: true,
    });
    await until(() => notifications.length > 0);
    expect(notifications).toEqual([{ dataset: 'positions', tick: T1.toISOString(), superseded: 3 }]);
    expect(harness.logs.join('')).toMatch(/"superseded":3.*tick superseded older jobs still waiting/);
  });

  it('a late producer of an older tick enqueues nothing and changes nothing', async () => {
    const late = await produceTick(producer, 'positions', T1);
    expect(late).toMatchObject({ jobs: 0, superseded: 0 });
    expect(await waitingTicks('positions')).toEqual(Array(3).fill(T2.toISOString()));
    // Producing the same tick twice, as two schedulers do, is one set of jobs.
    expect(await produceTick(producer, 'positions', T2)).toMatchObject({ jobs: 3, superseded: 0 });
    expect(await waitingTicks('positions')).toEqual(Array(3).fill(T2.toISOString()));
  });

  it('leaves a job a worker has started alone: it runs, and only the waiting ones are superseded', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const connection = createRedisConnection(harness.redis.url, 'worker');
    const worker = new Worker(
      'positions',
      async (job) => {
        started.push(job.id!);
        await held;
      },
      { connection, prefix: queueKeyPrefix(harness.options.QUEUE_PREFIX, 'positions'), concurrency: 1 },
    );
    try {
      await until(() => started.length === 1);
      const third = await produceTick(producer, 'positions', T3);
      expect(third).toMatchObject({ jobs: 3, superseded: 2 });
      expect(await waitingTicks('positions')).toEqual(Array(3).fill(T3.toISOString()));
      expect(await harness.queues.positions.getJobState(started[0]!)).toBe('active');
      const progress = await harness.tracker.progress('positions', T2);
      expect(progress).toMatchObject({ expected: 3, superseded: 2, complete: false });
    } finally {
      await worker.pause(true).catch(() => undefined);
      release();
      await worker.close();
      connection.disconnect();
    }
  });

  it('a superseded price slot becomes a price gap, to be filled later at its own time', async () => {
    await produceTick(producer, 'prices', T1);
    const gapsKey = priceGapsKey(harness.options.QUEUE_PREFIX);
    expect(await harness.connection.zcard(gapsKey)).toBe(0);
    expect(await produceTick(producer, 'prices', T2)).toMatchObject({ jobs: 1, superseded: 1 });
    expect(await harness.connection.zrange(gapsKey, '0', '-1')).toEqual([String(T1.getTime())]);
    expect(await waitingTicks('prices')).toEqual([T2.toISOString()]);
    // The current price job carries the end of its slot (PRICE_CRON every minute by default).
    const [job] = await harness.queues.prices.getJobs(['wait']);
    expect(job!.data.slotEnd).toBe(new Date(T2.getTime() + 60_000).toISOString());
  });

  it('a job still waiting for an address no longer watched is superseded by the next tick', async () => {
    const T4 = new Date('2026-11-21T12:45:00Z');
    await removeWatchedAddresses(harness.database, [ADDRESSES[2]!]);
    const fourth = await produceTick(producer, 'positions', T4);
    expect(fourth).toMatchObject({ jobs: 2, superseded: 3 });
    expect(await waitingTicks('positions')).toEqual(Array(2).fill(T4.toISOString()));
    expect(await runs('positions', T3)).toEqual(
      [...ADDRESSES].sort().map((target) => expect.objectContaining({ target, status: 'superseded' })),
    );
    // Added back, it is planned again.
    await addWatchedAddresses(harness.database, [ADDRESSES[2]!], {});
    expect(await produceTick(producer, 'positions', new Date('2026-11-21T13:00:00Z'))).toMatchObject({ jobs: 3 });
  });
});
