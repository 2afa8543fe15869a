/**
 * The cadence bench's virtual time checked end to end (issue 30, item 7): the real scheduler (on a
 * compressed clock: one simulated minute every `realMsPerMinute`), two `chaintap worker` processes
 * and the simulator's living world (its clock following the scheduler's) refresh the wallets at a
 * quota scaled with the clock; each positions request's time (raw_responses.received_at, back in
 * simulated time) against the world's record of changes gives the delay of each change to its
 * detection. The same setting run in virtual time (virtual-refresh.ts) gives the figures to compare.
 * Used by bench/tools/cadence-e2e.ts and test/bench/cadence-end-to-end.test.ts.
 */
import { addWatchedAddresses, addWatchedTokens } from '../../src/db/index.ts';
import { QUEUE_NAMES } from '../../src/datasets.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createScheduler } from '../../src/scheduler/scheduler.ts';
import { simulatedToken } from '../../src/simulator/index.ts';
import { worldChangeEvents, worldChanges } from '../../src/simulator/changes.ts';
import { createCompressedClock } from './compressed-clock.ts';
import { BENCH_API_KEY, createBenchPipeline, WORLD_TIME } from './pipeline.ts';
import { benchCoinType } from './scenario.ts';
import type { BenchServices } from './services.ts';
import { followWorldClock, simulatorControl } from './simulator-control.ts';
import { delayStats, runVirtualRefresh } from './virtual-refresh.ts';
import { startWorkers } from './worker-processes.ts';

const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;
const SEED = 'chaintap';
const T0 = WORLD_TIME;

export interface CadenceEndToEndSettings {
  wallets: string[];
  days: number;
  /** Real milliseconds per simulated minute. */
  realMsPerMinute: number;
  /** Requests per simulated minute. */
  quotaPerMinute: number;
  tokens: number;
  /** Minutes between price slots (PRICE_CRON), 1 by default. */
  priceEveryMinutes?: number;
  log?: (line: string) => void;
}

export interface CadenceDelays {
  changes: number;
  mean: number;
  p95: number;
  positionsRequests: number;
}

export interface CadenceEndToEndResult {
  endToEnd: CadenceDelays & {
    unseen: number;
    /** ms from each measured change to the request that saw it (to the end for one never seen), per wallet. */
    delaysByWallet: Map<string, number[]>;
    /** Positions requests per wallet, the measured day's and the warm-up's. */
    requestsByWallet: Map<string, number>;
    /** The simulator's answers by status. */
    statuses: Record<string, number>;
  };
  virtual: CadenceDelays;
}

/** The last day is measured, the ones before warm the estimates up. */
export async function runCadenceEndToEnd(
  services: BenchServices,
  settings: CadenceEndToEndSettings,
): Promise<CadenceEndToEndResult> {
  const { wallets, days, realMsPerMinute, quotaPerMinute } = settings;
  const log = settings.log ?? (() => undefined);
  const measureFrom = T0 + (days - 1) * DAY;
  const end = T0 + days * DAY;
  const quotaRps = (quotaPerMinute * 1000) / realMsPerMinute;
  const priceEvery = settings.priceEveryMinutes ?? 1;
  const pipeline = await createBenchPipeline(
    services,
    'cadence-e2e',
    {
      UPSTREAM_RPS: '',
      UPSTREAM_RATE: `${quotaRps}/s`,
      UPSTREAM_CONCURRENCY: '8',
      PRICE_CRON: priceEvery === 1 ? '* * * * *' : `*/${priceEvery} * * * *`,
      POSITIONS_CRON: '*/15 * * * *',
      NFT_CRON: '0 * * * *',
      MAINTENANCE_CRON: '0 0 1 1 *',
      // The max age in simulated time; the budget per hour is per real hour: 600 real hours a simulated one.
      REFRESH_MAX_AGE: '24h',
    },
    { habits: true },
  );
  const coinTypes: string[] = [];
  for (let i = 0; coinTypes.length < settings.tokens; i++)
    if (simulatedToken(benchCoinType(i)).priced) coinTypes.push(benchCoinType(i));
  try {
    await addWatchedTokens(pipeline.database, coinTypes);
    await addWatchedAddresses(pipeline.database, wallets, {});
    const control = simulatorControl(pipeline.simulator.url, BENCH_API_KEY);
    await control.setFaults({ rateLimit: quotaRps, latencyMs: 5 });
    await pipeline.simulator.resetStats();
    const workers = await startWorkers(2, pipeline.env, pipeline.queues, [...QUEUE_NAMES]);
    const clock = createCompressedClock(new Date(T0 - 5_000), realMsPerMinute);
    const world = followWorldClock(control, WORLD_TIME, () => clock.simulatedTime(performance.now() + 20), 10);
    const logger = createLogger({
      level: 'error',
      secrets: [BENCH_API_KEY],
      pretty: false,
      destination: process.stderr,
    });
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
            requests: quotaPerMinute,
            periodMs: MINUTE,
            rps: quotaPerMinute / 60,
            label: `${quotaPerMinute}/min`,
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
      log(`cadence-e2e: ${wallets.length} wallets, ${days} simulated days, one minute every ${realMsPerMinute} ms`);
      for (let day = 1; day <= Math.ceil(days); day += 1) {
        await clock.sleepUntil(Math.min(T0 + day * DAY, end));
        log(`cadence-e2e: day ${day} done`);
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
    const delaysByWallet = new Map<string, number[]>();
    let unseen = 0;
    for (const wallet of wallets) {
      const times = (requests.get(wallet) ?? []).map((row) => clock.simulatedTime(row.received_at.getTime() + offset));
      const delays: number[] = [];
      for (const change of worldChanges(wallet, 'positions', measureFrom, end, SEED, { habits: true })) {
        const seen = times.find((time) => time >= change);
        if (seen === undefined) {
          unseen += 1;
          delays.push(end - change);
        } else delays.push(seen - change);
      }
      delaysByWallet.set(wallet, delays);
    }
    const e2e = delayStats([...delaysByWallet.values()].flat());
    const virtual = runVirtualRefresh(
      { changes: (target, dataset, from, to) => worldChangeEvents(target, dataset, from, to, SEED, { habits: true }) },
      {
        policy: 'rate',
        targets: wallets,
        startMs: T0,
        measureFromMs: measureFrom,
        endMs: end,
        quotaPerMinute,
        priceRequestsPerMinute: Math.ceil(settings.tokens / 50) / priceEvery,
        periodsMs: { positions: 15 * MINUTE, nfts: 60 * MINUTE },
        maxAgeMs: DAY,
      },
    );
    const model = delayStats(virtual.changes.filter((c) => c.dataset === 'positions').map((c) => c.delayMs));
    return {
      endToEnd: {
        changes: e2e.count,
        mean: e2e.mean,
        p95: e2e.p95,
        positionsRequests: rows.length,
        unseen,
        delaysByWallet,
        requestsByWallet: new Map(wallets.map((wallet) => [wallet, requests.get(wallet)?.length ?? 0])),
        statuses: (await pipeline.simulator.stats()).byStatus,
      },
      virtual: {
        changes: model.count,
        mean: model.mean,
        p95: model.p95,
        positionsRequests: virtual.requests.positions,
      },
    };
  } finally {
    await pipeline.close();
  }
}
