/**
 * The cadence bench's virtual time checked end to end (issue 30, item 7):
 *   node bench/tools/cadence-e2e.ts [wallets] [days]
 * (default 300 wallets, 3 days: 2 of warm-up, the third measured; BENCH_ADMIN_URL and BENCH_REDIS_URL
 * as for `npm run bench`). The real scheduler (on a compressed clock: one simulated minute every
 * REAL_MS_PER_MINUTE), two `chaintap worker` processes and the simulator's living world (its clock
 * following the scheduler's) refresh the wallets at a quota scaled with the clock; each positions
 * request's time (raw_responses.received_at, back in simulated time) against the world's record of
 * changes gives the delay of each change to its detection. The same setting run in virtual time
 * (bench/support/virtual-refresh.ts) gives the figures to compare: mean and p95 within 20 %.
 */
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { QUEUE_NAMES } from '../../src/datasets.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createScheduler } from '../../src/scheduler/scheduler.ts';
import { simulatedToken } from '../../src/simulator/index.ts';
import { worldChangeEvents, worldChanges } from '../../src/simulator/changes.ts';
import { createCompressedClock } from '../support/compressed-clock.ts';
import { BENCH_API_KEY, createBenchPipeline, WORLD_TIME } from '../support/pipeline.ts';
import { benchAddress, benchCoinType } from '../support/scenario.ts';
import { benchServices } from '../support/services.ts';
import { followWorldClock, simulatorControl } from '../support/simulator-control.ts';
import { delayStats, runVirtualRefresh } from '../support/virtual-refresh.ts';
import { startWorkers } from '../support/worker-processes.ts';

const WALLETS = Number(process.argv[2] ?? 300);
const DAYS = Number(process.argv[3] ?? 3);
const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;
const REAL_MS_PER_MINUTE = 100;
/** Requests per simulated minute: short of every wallet every slot, as 40/min is for 2,000. */
const QUOTA_PER_MINUTE = 10;
const TOKENS = 10;
const SEED = 'chaintap';
const T0 = WORLD_TIME;
const MEASURE_FROM = T0 + (DAYS - 1) * DAY;
const END = T0 + DAYS * DAY;

const services = benchServices();
const quotaRps = (QUOTA_PER_MINUTE * 1000) / REAL_MS_PER_MINUTE;
const pipeline = await createBenchPipeline(
  services,
  'cadence-e2e',
  {
    UPSTREAM_RPS: '',
    UPSTREAM_RATE: `${quotaRps}/s`,
    UPSTREAM_CONCURRENCY: '8',
    PRICE_CRON: '* * * * *',
    POSITIONS_CRON: '*/15 * * * *',
    NFT_CRON: '0 * * * *',
    MAINTENANCE_CRON: '0 0 1 1 *',
    // The max age in simulated time; the budget per hour is per real hour: 600 real hours a simulated one.
    REFRESH_MAX_AGE: '24h',
  },
  { habits: true },
);
const wallets = Array.from({ length: WALLETS }, (_, i) => benchAddress(i));
const coinTypes: string[] = [];
for (let i = 0; coinTypes.length < TOKENS; i++)
  if (simulatedToken(benchCoinType(i)).priced) coinTypes.push(benchCoinType(i));
try {
  await addWatchedTokens(pipeline.database, coinTypes);
  await addWatchedAddresses(pipeline.database, wallets, {});
  const control = simulatorControl(pipeline.simulator.url, BENCH_API_KEY);
  await control.setFaults({ rateLimit: quotaRps, latencyMs: 5 });
  const workers = await startWorkers(2, pipeline.env, pipeline.queues, [...QUEUE_NAMES]);
  const clock = createCompressedClock(new Date(T0 - 5_000), REAL_MS_PER_MINUTE);
  const world = followWorldClock(control, WORLD_TIME, () => clock.simulatedTime(performance.now() + 20), 10);
  const logger = createLogger({ level: 'error', secrets: [BENCH_API_KEY], pretty: false, destination: process.stderr });
  // The policy's budget is per real hour; the quota's requests per simulated minute are what the
  // crons see, so the budget is the quota at its simulated rate (the plan's, scaled).
  const scheduler = createScheduler({
    ...pipeline,
    context: {
      ...pipeline.context,
      logger,
      options: {
        ...pipeline.context.options,
        UPSTREAM_RATE: {
          requests: QUOTA_PER_MINUTE,
          periodMs: MINUTE,
          rps: QUOTA_PER_MINUTE / 60,
          label: `${QUOTA_PER_MINUTE}/min`,
        },
      },
    },
    clock,
  });
  const realStart = { date: 0, perf: 0 };
  try {
    await scheduler.start();
    clock.run();
    [realStart.date, realStart.perf] = [Date.now(), performance.now()];
    process.stderr.write(
      `cadence-e2e: ${WALLETS} wallets, ${DAYS} simulated days, one minute every ${REAL_MS_PER_MINUTE} ms\n`,
    );
    for (let day = 1; day <= DAYS; day += 1) {
      await clock.sleepUntil(T0 + day * DAY);
      process.stderr.write(`cadence-e2e: day ${day} done\n`);
    }
  } finally {
    await scheduler.stop();
    await clock.stop();
    await workers.stop();
    await world.stop();
  }
  // Each positions request in simulated time: the compressed clock's time at its real time.
  const offset = realStart.perf - realStart.date;
  const rows = await pipeline.database.sql<{ target: string; received_at: Date }[]>`
    select target, received_at from raw_responses where dataset = 'positions' order by target, received_at`;
  const requests = Map.groupBy(rows, (row) => row.target);
  const delays: number[] = [];
  let unseen = 0;
  for (const wallet of wallets) {
    const times = (requests.get(wallet) ?? []).map((row) => clock.simulatedTime(row.received_at.getTime() + offset));
    for (const change of worldChanges(wallet, 'positions', MEASURE_FROM, END, SEED, { habits: true })) {
      const seen = times.find((time) => time >= change);
      if (seen === undefined) {
        unseen += 1;
        delays.push(END - change);
      } else delays.push(seen - change);
    }
  }
  const e2e = delayStats(delays);
  const virtual = runVirtualRefresh(
    { changes: (target, dataset, from, to) => worldChangeEvents(target, dataset, from, to, SEED, { habits: true }) },
    {
      policy: 'rate',
      targets: wallets,
      startMs: T0,
      measureFromMs: MEASURE_FROM,
      endMs: END,
      quotaPerMinute: QUOTA_PER_MINUTE,
      priceRequestsPerMinute: Math.ceil(TOKENS / 50),
      periodsMs: { positions: 15 * MINUTE, nfts: 60 * MINUTE },
      maxAgeMs: DAY,
    },
  );
  const model = delayStats(virtual.changes.filter((c) => c.dataset === 'positions').map((c) => c.delayMs));
  const minutes = (ms: number) => (ms / MINUTE).toFixed(1);
  console.log(
    JSON.stringify({
      wallets: WALLETS,
      days: DAYS,
      quotaPerMinute: QUOTA_PER_MINUTE,
      endToEnd: {
        changes: e2e.count,
        unseen,
        meanMin: minutes(e2e.mean),
        p95Min: minutes(e2e.p95),
        positionsRequests: rows.length,
      },
      virtual: {
        changes: model.count,
        meanMin: minutes(model.mean),
        p95Min: minutes(model.p95),
        positionsRequests: virtual.requests.positions,
      },
      ratio: { mean: (e2e.mean / model.mean).toFixed(3), p95: (e2e.p95 / model.p95).toFixed(3) },
    }),
  );
} finally {
  await pipeline.close();
}
