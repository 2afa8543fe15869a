import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { normalizeCoinType } from '../../src/chain/coin-type.ts';
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { redisTopology } from '../../src/config/redis-topology.ts';
import { readQueueDepths } from '../../src/ops/queue-depths.ts';
import { closeQueues, createQueues } from '../../src/queue/queues.ts';
import { priceGapsKey } from '../../src/queue/redis-keys.ts';
import { SNAPSHOT_CHANNEL } from '../../src/queue/tick-notification.ts';
import { createTickTracker } from '../../src/queue/tick-tracker.ts';
import { createRedisConnection, type RedisClient } from '../../src/runtime/redis-connection.ts';
import { sleep } from '../../src/runtime/sleep.ts';
import { createScheduler, type Scheduler } from '../../src/scheduler/scheduler.ts';
import { createWorkerPool, type WorkerPool } from '../../src/worker/workers.ts';
import { createFakeSchedulerClock } from '../support/fake-scheduler-clock.ts';
import { waitFor } from '../support/fault-processes.ts';
import { faultWatchlist } from '../support/fault-scenario.ts';
import { createPipelineHarness, producerDeps, WORLD_TIME, type PipelineHarness } from '../support/pipeline.ts';

// Two schedulers for availability whose clocks differ by 40 s (one machine's NTP is off), both
// running the whole time, over 26 minutes of crons: prices every minute, positions every 5, NFTs
// every 10. Each is the real scheduler with its own Redis connection; its clock is a fake one that
// the test moves (scheduler-clock.ts), and the simulated upstream's world clock follows the true
// time, so the minutes pass in seconds. The fast scheduler enqueues every slot 40 s early; the slow
// one the same slots 40 s late. Every slot's jobs must run once: one request each, one
// announcement per tick, nothing superseded, a price for every minute; the prices the fast one
// fetched early are the previous minute's, so each of its slots is filled at its own time by the
// catch-up (one request more per price job, and no gap left); and the schedulers must say that their
// clocks differ (src/scheduler/clock-skew.ts).
const SKEW_MS = 40_000;
const STEP_MS = 10_000;
const REAL_MS_PER_STEP = 100;
const START = new Date('2026-11-21T11:54:30Z');
const END = new Date('2026-11-21T12:20:30Z');
const MINUTE = 60_000;
const { tokens, plainAddresses: addresses } = faultWatchlist({ tokens: 60, addresses: 6 });

let harness: PipelineHarness;
let listener: postgres.Sql;
let pool: WorkerPool;
const schedulers: Scheduler[] = [];
const connections: RedisClient[] = [];
const announced: { dataset: string; tick: string }[] = [];

beforeAll(async () => {
  harness = await createPipelineHarness({
    options: {
      PRICE_CRON: '* * * * *',
      POSITIONS_CRON: '*/5 * * * *',
      NFT_CRON: '*/10 * * * *',
      MAINTENANCE_CRON: '0 0 1 1 *',
      LOG_LEVEL: 'warn',
    },
  });
  await addWatchedTokens(harness.database, tokens);
  await addWatchedAddresses(harness.database, addresses, {});
  listener = postgres(harness.database.url, { max: 1, onnotice: () => {} });
  await listener.listen(SNAPSHOT_CHANNEL, (payload) => announced.push(JSON.parse(payload)));
});

afterAll(async () => {
  await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
  await pool?.close();
  for (const connection of connections) connection.disconnect();
  await listener?.end();
  await harness?.close();
});

/** A scheduler as another process would run it: its own connection, queues and tick tracker. */
function schedulerWith(clock: ReturnType<typeof createFakeSchedulerClock>, trueTime: () => Date): Scheduler {
  const connection = createRedisConnection(redisTopology(harness.options), 'worker');
  connections.push(connection);
  const prefix = harness.options.QUEUE_PREFIX;
  const queues = createQueues(connection, prefix);
  const scheduler = createScheduler({
    ...producerDeps(harness),
    redis: connection,
    queues,
    tracker: createTickTracker(connection, prefix),
    clock,
    // The true time of this world, which Redis's real clock is not: the minutes pass in seconds.
    referenceClock: async () => trueTime(),
  });
  return {
    start: () => scheduler.start(),
    stop: async () => {
      await scheduler.stop();
      await closeQueues(queues);
    },
  };
}

/** No job of any queue waiting or running. */
const queuesIdle = async () =>
  (await readQueueDepths(harness.queues)).every(
    ({ counts }) => counts.waiting + counts.prioritized + counts.active === 0,
  );

/** The minutes from the first whole minute after `from` to `to`, every `everyMinutes`. */
function slots(from: Date, to: Date, everyMinutes: number): string[] {
  const times: string[] = [];
  for (let t = Math.ceil(from.getTime() / MINUTE) * MINUTE; t <= to.getTime(); t += MINUTE)
    if ((t / MINUTE) % everyMinutes === 0) times.push(new Date(t).toISOString());
  return times;
}

it('two schedulers 40 s apart enqueue every slot once: one request per job, the early price slots filled at their own time, no gap', async () => {
  const slow = createFakeSchedulerClock(START);
  const fast = createFakeSchedulerClock(new Date(START.getTime() + SKEW_MS));
  let now = START.getTime();
  const trueTime = () => new Date(now);
  schedulers.push(schedulerWith(slow, trueTime), schedulerWith(fast, trueTime));
  for (const scheduler of schedulers) await scheduler.start();
  pool = createWorkerPool({ ...producerDeps(harness), client: harness.client });
  harness.simulator.resetStats();

  for (now = START.getTime() + STEP_MS; now <= END.getTime(); now += STEP_MS) {
    // The upstream's world time is the true time.
    harness.simulator.setClockOffset(now - WORLD_TIME);
    await slow.advanceTo(new Date(now));
    await fast.advanceTo(new Date(now + SKEW_MS));
    await sleep(REAL_MS_PER_STEP);
    // The jobs enqueued run before the world moves on, as they do within seconds in real time: on a
    // loaded machine an early price job could otherwise run after its slot's true time (then it
    // fetches its own minute and leaves nothing for the catch-up).
    await waitFor("the step's jobs run", queuesIdle, 30_000, 20);
  }
  // Every slot either scheduler reached: the fast one is 40 s ahead.
  const last = new Date(END.getTime() + SKEW_MS);
  const expected = {
    prices: slots(START, last, 1),
    positions: slots(START, last, 5),
    nfts: slots(START, last, 10),
  };
  const allAnnounced = () =>
    Object.entries(expected).every(([dataset, ticks]) =>
      ticks.every((tick) => announced.some((a) => a.dataset === dataset && a.tick === tick)),
    );
  const jobsOf = { prices: Math.ceil(tokens.length / 50), positions: addresses.length, nfts: addresses.length };
  // The fast scheduler enqueued every price slot but the first (the slow one's 11:55) early.
  const catchUps = jobsOf.prices * (expected.prices.length - 1);
  const jobs = Object.entries(expected).reduce(
    (sum, [dataset, ticks]) => sum + ticks.length * jobsOf[dataset as keyof typeof jobsOf],
    0,
  );
  const deadline = Date.now() + 60_000;
  while ((!allAnnounced() || harness.simulator.stats().requests < jobs + catchUps) && Date.now() < deadline)
    await sleep(200);
  await sleep(1_000); // an announcement made twice, or a request too many, would come now

  const sql = harness.database.sql;
  const runs = await sql<{ dataset: string; tick: Date; status: string; attempts: number; n: number }[]>`
    select dataset, tick, status, attempts, count(*)::int as n from ingestion_runs
    group by dataset, tick, status, attempts order by dataset, tick`;
  const expectedRuns = Object.entries(expected).flatMap(([dataset, ticks]) =>
    ticks.map((tick) => ({
      dataset,
      tick: new Date(tick),
      status: 'succeeded',
      attempts: 1,
      n: jobsOf[dataset as keyof typeof jobsOf],
    })),
  );
  expect(runs).toEqual(expectedRuns.sort((a, b) => a.dataset.localeCompare(b.dataset) || +a.tick - +b.tick));
  // One request per job, nothing enqueued twice; and one per early price job, at its slot's own time.
  expect(harness.simulator.stats().requests).toBe(jobs + catchUps);
  expect(await harness.connection.zcard(priceGapsKey(harness.options.QUEUE_PREFIX))).toBe(0);
  // One announcement per tick, one more for each price slot the catch-up filled, and none for a
  // tick that was not one.
  const announcedTicks = announced.map((a) => `${a.dataset} ${a.tick}`).sort();
  const expectedTicks = Object.entries(expected)
    .flatMap(([dataset, ticks]) => ticks.map((tick) => `${dataset} ${tick}`))
    .concat(expected.prices.slice(1).map((tick) => `prices ${tick}`))
    .sort();
  expect(announcedTicks).toEqual(expectedTicks);
  // Prices without a hole: the fast scheduler enqueues each slot 40 s early, so its jobs fetch the
  // minute before their slot (the upstream's time), which is stored at its own time and leaves the
  // slot to the catch-up. Every minute from the first slot to the last once per watched token (the
  // positions answers' harvested prices, at their own times, left out).
  const series = await sql<{ coin_type: string; first: Date; last: Date; minutes: number }[]>`
    select coin_type, min(price_time) as first, max(price_time) as last, count(*)::int as minutes
    from token_prices
    where chain = 'sui' and coin_type = any(${tokens.map((token) => normalizeCoinType(token))}::text[])
      and origin <> 'positions'
    group by coin_type`;
  expect(series).toHaveLength(tokens.length);
  for (const row of series)
    expect(row).toMatchObject({
      first: new Date(expected.prices[0]!),
      last: new Date(expected.prices.at(-1)!),
      minutes: expected.prices.length,
    });
  // And each scheduler says, once, that the clocks differ, from its side.
  const warnings = harness.logs
    .map((line) => JSON.parse(line) as { level: string; msg: string; skewMs?: number })
    .filter((line) => line.level === 'warn' && /^this scheduler's clock is/.test(line.msg));
  expect(warnings.map((line) => Math.sign(line.skewMs!)).sort()).toEqual([-1, 1]);
  for (const line of warnings) expect(Math.abs(line.skewMs!)).toBe(SKEW_MS);
});
