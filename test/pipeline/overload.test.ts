import { afterEach, describe, expect, it } from 'vitest';
import { addWatchedAddresses, addWatchedTokens, removeWatchedAddresses } from '../../src/db/index.ts';
import { createScheduler, type Scheduler } from '../../src/scheduler/scheduler.ts';
import { createWorkerPool, type WorkerPool } from '../../src/worker/workers.ts';
import { sleep } from '../../src/runtime/sleep.ts';
import { createFakeSchedulerClock } from '../support/fake-scheduler-clock.ts';
import { createPipelineHarness, WORLD_TIME, type PipelineHarness, producerDeps } from '../support/pipeline.ts';
import { priceGapsKey } from '../../src/queue/redis-keys.ts';

// A watchlist that needs several times the quota, run by the real scheduler and workers: the
// scheduler's clock is a fake one that fires each cron minute every REAL_MS_PER_MINUTE of real time,
// and the simulated upstream's world clock runs as fast, so that prices fetched during a slot carry
// that slot's time. Every cron fires every minute: per slot the watchlist needs 1 price request and
// one positions and one NFT request per address, and the quota gives QUOTA_PER_SECOND *
// REAL_MS_PER_MINUTE / 1000 requests.
const REAL_MS_PER_MINUTE = 1_000;
const QUOTA_PER_SECOND = 9; // 9 requests per simulated minute
const ADDRESSES = Array.from({ length: 30 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`);
const TOKENS = [
  `0x${'2'.padStart(64, '0')}::sui::SUI`,
  '0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN',
];
const T0 = new Date('2026-11-21T12:00:00Z');
const MINUTE = 60_000;
const minute = (k: number) => new Date(T0.getTime() + k * MINUTE);

interface Run {
  harness: PipelineHarness;
  /** Moves the world clock, then the scheduler's, to `time`. */
  moveTo(time: Date): Promise<void>;
  scheduler: Scheduler;
  pool: WorkerPool;
  stopWorld(): void;
}
let run: Run | undefined;

afterEach(async () => {
  if (!run) return;
  run.stopWorld();
  await run.scheduler.stop();
  await run.pool.close();
  await run.harness.close();
  run = undefined;
});

async function startRun(options: Record<string, string> = {}): Promise<Run> {
  const harness = await createPipelineHarness({
    options: {
      UPSTREAM_RATE: `${QUOTA_PER_SECOND}/s`,
      UPSTREAM_CONCURRENCY: '2',
      PRICE_CRON: '* * * * *',
      POSITIONS_CRON: '* * * * *',
      NFT_CRON: '* * * * *',
      MAINTENANCE_CRON: '0 0 1 1 *',
      LOG_LEVEL: 'warn',
      ...options,
    },
    // The upstream answers 429 to anything past the quota in a trailing second.
    simulator: { faults: { rateLimit: QUOTA_PER_SECOND } },
  });
  await addWatchedTokens(harness.database, TOKENS);
  await addWatchedAddresses(harness.database, ADDRESSES, {});
  // The world clock follows the scheduler's simulated minutes, continuously: moved to each time the
  // scheduler's clock is moved to (a slot, or a third of a minute into it) just before the scheduler
  // is, then on at the same pace. Following the real time since the start instead trailed the
  // scheduler's clock: a slot's price job that asked within milliseconds got the minute before's.
  const clock = createFakeSchedulerClock(new Date(T0.getTime() - 1_000));
  let movedTo = clock.now().getTime();
  let movedAt = Date.now();
  const follow = () => {
    const sinceMove = Math.min(((Date.now() - movedAt) * MINUTE) / REAL_MS_PER_MINUTE, MINUTE / 3 - 1_000);
    harness.simulator.setClockOffset(movedTo + sinceMove - WORLD_TIME);
  };
  const moveTo = async (time: Date) => {
    [movedTo, movedAt] = [time.getTime(), Date.now()];
    follow();
    await clock.advanceTo(time);
  };
  follow();
  const world = setInterval(follow, 20);
  const producer = producerDeps(harness);
  const scheduler = createScheduler({ ...producer, clock });
  await scheduler.start();
  const pool = createWorkerPool({ ...producer, client: harness.client });
  return { harness, moveTo, scheduler, pool, stopWorld: () => clearInterval(world) };
}

/** Runs simulated minutes from..to (inclusive), one every REAL_MS_PER_MINUTE; returns the backlog seen. */
async function runMinutes(current: Run, from: number, to: number): Promise<Record<string, number>[]> {
  const samples: Record<string, number>[] = [];
  for (let k = from; k <= to; k += 1) {
    const due = Date.now() + REAL_MS_PER_MINUTE;
    await current.moveTo(minute(k));
    // Twice more within the minute: the catch-up timer fires, the backlog is sampled.
    for (const part of [1, 2]) {
      await sleep(REAL_MS_PER_MINUTE / 3);
      await current.moveTo(new Date(minute(k).getTime() + (part * MINUTE) / 3));
      samples.push(await backlog(current.harness));
    }
    await sleep(Math.max(0, due - Date.now()));
  }
  return samples;
}

/** Jobs not yet started, per queue. */
async function backlog(harness: PipelineHarness): Promise<Record<string, number>> {
  const entries = await Promise.all(
    (['prices', 'positions', 'nfts', 'price-catch-up'] as const).map(async (queue) => {
      const counts = await harness.queues[queue].getJobCounts('waiting', 'prioritized', 'delayed');
      return [queue, counts.waiting! + counts.prioritized! + counts.delayed!] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** Slots k in [from, to] for which some watched token has no price at exactly that minute. */
async function priceHoles(harness: PipelineHarness, from: number, to: number): Promise<string[]> {
  const rows = await harness.database.sql<{ slot: Date }[]>`
    select s.slot from generate_series(${minute(from)}::timestamptz, ${minute(to)}::timestamptz, interval '1 minute') as s(slot)
    cross join unnest(${TOKENS}::text[]) as t(coin_type)
    where not exists (select 1 from token_prices p where p.coin_type = t.coin_type and p.price_time = s.slot)
    group by s.slot order by s.slot`;
  return rows.map((row) => row.slot.toISOString());
}

const supersededRuns = async (harness: PipelineHarness) =>
  Object.fromEntries(
    (
      await harness.database.sql<{ dataset: string; count: number }[]>`
      select dataset, count(*)::int as count from ingestion_runs where status = 'superseded' group by dataset`
    ).map((row) => [row.dataset, row.count]),
  );

describe('a watchlist several times over the quota', () => {
  it('keeps the backlog to one tick, uses the quota without a 429, and serves every address in turn', async () => {
    run = await startRun();
    const { harness } = run;
    harness.simulator.resetStats();
    const samples = await runMinutes(run, 1, 12);

    // Never more waiting than one tick's jobs per dataset (and one catch-up slot).
    for (const sample of samples) {
      expect(sample.prices).toBeLessThanOrEqual(1);
      expect(sample.positions).toBeLessThanOrEqual(ADDRESSES.length);
      expect(sample.nfts).toBeLessThanOrEqual(ADDRESSES.length);
      expect(sample['price-catch-up']).toBeLessThanOrEqual(1);
    }
    const stats = harness.simulator.stats();
    expect(stats.byStatus['429'] ?? 0).toBe(0);
    const seconds = (stats.lastRequestAt! - stats.firstRequestAt!) / 1000;
    expect(stats.requests / seconds).toBeGreaterThanOrEqual(0.9 * QUOTA_PER_SECOND);

    // Prices go first (DATASET_PRIORITY): a price at every slot, none superseded.
    expect(await priceHoles(harness, 1, 11)).toEqual([]);
    const superseded = await supersededRuns(harness);
    expect(superseded.prices).toBeUndefined();

    expect(superseded.positions).toBeGreaterThan(0);
    // Stalest first: about 8 positions requests a minute for 30 addresses, and every address had its turn.
    // (The quota is per real second and the crons fire every second: the refresh budget, per real hour,
    // covers every address every slot, so the slots are as with a fixed cadence: docs/quota.md.)
    const [{ refreshed }] = await harness.database.sql<{ refreshed: number }[]>`
      select count(*)::int as refreshed from dataset_watermarks where dataset = 'positions'`;
    expect(refreshed).toBe(ADDRESSES.length);
  });

  it('fills the price series back, with no holes, once the load drops', async () => {
    // Prices last: under overload their slots are superseded or fetched too late.
    run = await startRun({ DATASET_PRIORITY: 'positions,nfts,prices' });
    const { harness } = run;
    await runMinutes(run, 1, 8);
    expect((await priceHoles(harness, 1, 8)).length).toBeGreaterThan(0);
    const gaps = await harness.connection.zcard(priceGapsKey(harness.options.QUEUE_PREFIX));
    expect(gaps).toBeGreaterThan(0);

    // Down to two addresses: 5 requests a minute against 9; the spare ones fill the gaps.
    await removeWatchedAddresses(harness.database, ADDRESSES.slice(2));
    // Until the gaps are filled (about four spare requests a minute, one slot at a time), at most 40 minutes.
    const gapsKey = priceGapsKey(harness.options.QUEUE_PREFIX);
    let last = 8;
    while (last < 40) {
      last += 1;
      await runMinutes(run, last, last);
      if (
        last >= 16 &&
        (await harness.connection.zcard(gapsKey)) === 0 &&
        (await priceHoles(harness, 1, last - 1)).length === 0
      )
        break;
    }
    expect(await priceHoles(harness, 1, last - 1)).toEqual([]);
    expect(await harness.connection.zcard(gapsKey)).toBe(0);
    expect(harness.simulator.stats().byStatus['429'] ?? 0).toBe(0);
    // 8 overloaded minutes and at most 40 more of a second each, and their setup, on a loaded machine.
  }, 150_000);
});
