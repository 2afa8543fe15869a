import { parseUpstreamRate } from '../../src/config/upstream-rate.ts';
import { DATASETS, QUEUE_NAMES, type Dataset } from '../../src/datasets.ts';
import { addWatchedAddresses, addWatchedTokens, listWatchedAddresses, listWatchedTokens } from '../../src/db/index.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import {
  describeCapacityPlan,
  describeVerdict,
  loadCapacityPlan,
  type CapacityPlan,
} from '../../src/scheduler/capacity-plan.ts';
import { priceJobs } from '../../src/scheduler/job-builders.ts';
import { createScheduler } from '../../src/scheduler/scheduler.ts';
import { simulatedToken, type SimulatorStats } from '../../src/simulator/index.ts';
import { createCompressedClock } from '../support/compressed-clock.ts';
import { BENCH_API_KEY, createBenchPipeline, WORLD_TIME, type BenchPipeline } from '../support/pipeline.ts';
import { BACKLOG_QUEUES, percentile, sampleBacklog, targetAges, type BacklogQueue } from '../support/quota-samples.ts';
import type { Figure } from '../support/report.ts';
import { benchAddress, benchCoinType, round, type Scenario } from '../support/scenario.ts';
import type { BenchServices } from '../support/services.ts';
import { followWorldClock, simulatorControl } from '../support/simulator-control.ts';
import { startWorkers } from '../support/worker-processes.ts';
import { priceGapsKey } from '../../src/queue/redis-keys.ts';

// The real service's free quota, its default crons and one price batch, on compressed time: one
// simulated minute every REAL_MS_PER_MINUTE, and every rate scaled with it (the quota of 40 a
// minute becomes 40 per REAL_MS_PER_MINUTE for the workers and the simulator's strict limit).
const REAL_MS_PER_MINUTE = 500;
const QUOTA = '40/min';
const QUOTA_PER_MINUTE = 40;
const QUOTA_RPS = (QUOTA_PER_MINUTE * 1000) / REAL_MS_PER_MINUTE;
/**
 * The simulator's latency, compressed too: 5 ms stands for 0.6 s at real speed (an assumption: the
 * real service's latency is not measured here). At the other scenarios' 50 ms (6 simulated seconds)
 * jobs spent so long past their start, against 12.5 ms between two starts, that a worker process
 * often had no positions job waiting when a start came due, and NFT requests took 7.8 % of the
 * quota, which the plan leaves them none of (3.6 % at 5 ms: docs/benchmarks.md, "Quota").
 */
const LATENCY_MS = Math.round((600 * REAL_MS_PER_MINUTE) / 60_000);
const CRONS = { PRICE_CRON: '* * * * *', POSITIONS_CRON: '*/15 * * * *', NFT_CRON: '0 * * * *' };
/** Jobs a worker process takes at a time per queue: the default UPSTREAM_CONCURRENCY. */
const IN_FLIGHT = 16;
const TOKENS = 50;
/** Watched addresses of the phase that fits, then of the one 2.1x over the quota. */
const PHASES = [100, 1_000] as const;
const WARM_UP_MINUTES = 30;
const MEASURED_MINUTES = 120;
const MINUTE = 60_000;
/** The run's first slot: every cron has one here. */
const T0 = WORLD_TIME;
const END = T0 + (WARM_UP_MINUTES + MEASURED_MINUTES) * MINUTE + 30_000;
/** Backlog and freshness are sampled twice a simulated minute, at :15 and :45. */
const SAMPLE_EVERY = 30_000;
/** Real milliseconds between two settings of the simulator's world clock. */
const WORLD_FOLLOW_MS = 10;

interface PhaseResult {
  addresses: number;
  plan: CapacityPlan;
  maxBacklog: Record<BacklogQueue, number>;
  backlogSamples: number;
  freshnessSamples: number;
  ages: Record<Dataset, { p50: number; p95: number }>;
  stats: SimulatorStats;
  elapsedMinutes: number;
  priceHoles: number;
  gapsLeft: number;
  runs: { dataset: string; status: string; count: number }[];
  maxLatenessMs: number;
  workerOutput: string;
  simulatorPriority: string;
}

/** The first `count` bench coin types the simulated upstream has a price for (1 in 97 has none). */
function pricedCoinTypes(count: number): string[] {
  const coinTypes: string[] = [];
  for (let i = 0; coinTypes.length < count; i++) {
    if (simulatedToken(benchCoinType(i)).priced) coinTypes.push(benchCoinType(i));
  }
  return coinTypes;
}

async function runPhase(services: BenchServices, addresses: number, log: (message: string) => void) {
  const pipeline = await createBenchPipeline(services, 'quota', {
    // UPSTREAM_RATE replaces the pipeline's UPSTREAM_RPS (empty counts as unset).
    UPSTREAM_RPS: '',
    UPSTREAM_RATE: `${QUOTA_RPS}/s`,
    UPSTREAM_CONCURRENCY: String(IN_FLIGHT),
    ...CRONS,
  });
  try {
    const { database } = pipeline;
    await addWatchedTokens(database, pricedCoinTypes(TOKENS));
    for (let i = 0; i < addresses; i += 1000) {
      const count = Math.min(1000, addresses - i);
      await addWatchedAddresses(
        database,
        Array.from({ length: count }, (_, j) => benchAddress(i + j)),
        {},
      );
    }
    // The plan at the real quota; the run's compressed one is the same per simulated minute.
    const plan = await loadCapacityPlan(database, {
      ...pipeline.context.options,
      UPSTREAM_RATE: parseUpstreamRate(QUOTA),
    });
    log(`quota: ${addresses.toLocaleString('en-US')} addresses: the plan at ${QUOTA}: ${describeVerdict(plan)}`);
    return await measure(pipeline, addresses, plan, log);
  } finally {
    await pipeline.close();
  }
}

/** Runs the scheduler on the compressed clock with two worker processes, sampling as it goes. */
async function measure(
  pipeline: BenchPipeline,
  addresses: number,
  plan: CapacityPlan,
  log: (message: string) => void,
): Promise<PhaseResult> {
  const { database, simulator, queues } = pipeline;
  const control = simulatorControl(simulator.url, BENCH_API_KEY);
  await control.setFaults({ rateLimit: QUOTA_RPS, latencyMs: LATENCY_MS });
  const addressTargets = (await listWatchedAddresses(database)).map((watched) => watched.address);
  const targets: Record<Dataset, string[]> = {
    prices: priceJobs(await listWatchedTokens(database), new Date(T0)).map((job) => job.target),
    positions: addressTargets,
    nfts: addressTargets,
  };

  const workers = await startWorkers(2, pipeline.env, queues, [...QUEUE_NAMES]);
  const clock = createCompressedClock(new Date(T0 - 5_000), REAL_MS_PER_MINUTE);
  // The world clock leads the scheduler's by up to two settings' interval, never lags (see followWorldClock).
  const world = followWorldClock(
    control,
    WORLD_TIME,
    () => clock.simulatedTime(performance.now() + 2 * WORLD_FOLLOW_MS),
    WORLD_FOLLOW_MS,
  );
  // The scheduler's warnings (a tick superseded older jobs) are what the run is about: counted, not printed.
  const logger = createLogger({ level: 'error', secrets: [BENCH_API_KEY], pretty: false, destination: process.stderr });
  const scheduler = createScheduler({ ...pipeline, context: { ...pipeline.context, logger }, clock });

  const maxBacklog = Object.fromEntries(BACKLOG_QUEUES.map((queue) => [queue, 0])) as Record<BacklogQueue, number>;
  const ages: Record<Dataset, number[]> = { prices: [], positions: [], nfts: [] };
  let backlogSamples = 0;
  let freshnessSamples = 0;
  let stats: SimulatorStats;
  let elapsedMinutes: number;
  try {
    await simulator.resetStats();
    await scheduler.start();
    clock.run();
    log(
      `quota: ${addresses.toLocaleString('en-US')} addresses: ${(END - T0) / MINUTE} simulated minutes, one every ${REAL_MS_PER_MINUTE} ms`,
    );
    for (let time = T0 + SAMPLE_EVERY / 2; time < END; time += SAMPLE_EVERY) {
      await clock.sleepUntil(time);
      // Between the producers' runs: while a tick is enqueued, its jobs and those they replace are both there.
      await clock.idle();
      const now = clock.simulatedTime();
      const backlog = await sampleBacklog(queues);
      for (const queue of BACKLOG_QUEUES) maxBacklog[queue] = Math.max(maxBacklog[queue], backlog[queue]);
      backlogSamples++;
      if (now < T0 + WARM_UP_MINUTES * MINUTE) continue;
      const sample = await targetAges(database.sql, targets, now, T0);
      for (const dataset of DATASETS) for (const age of sample[dataset]) ages[dataset].push(age);
      freshnessSamples++;
    }
    await clock.sleepUntil(END);
    stats = await simulator.stats();
    elapsedMinutes = (clock.simulatedTime() - T0) / MINUTE;
  } finally {
    await scheduler.stop();
    await clock.stop();
    await workers.stop();
    await world.stop();
  }

  // Every price slot up to the last whole minute before the end: a price for each watched token.
  const lastSlot = new Date(Math.floor(END / MINUTE) * MINUTE - MINUTE);
  const tokens = await listWatchedTokens(database);
  const [holes] = await database.sql<{ slots: number }[]>`
    select count(distinct s.slot)::int as slots
    from generate_series(${new Date(T0)}::timestamptz, ${lastSlot}::timestamptz, interval '1 minute') as s(slot)
    cross join unnest(${tokens}::text[]) as t(coin_type)
    where not exists (select 1 from token_prices p where p.coin_type = t.coin_type and p.price_time = s.slot)`;
  const runs = await database.sql<{ dataset: string; status: string; count: number }[]>`
    select dataset, status, count(*)::int as count from ingestion_runs group by dataset, status order by dataset, status`;
  const gapsLeft = await pipeline.redis.zcard(priceGapsKey(pipeline.context.options.QUEUE_PREFIX));
  const quantiles = (values: number[]) => ({ p50: percentile(values, 0.5), p95: percentile(values, 0.95) });
  return {
    addresses,
    plan,
    maxBacklog,
    backlogSamples,
    freshnessSamples,
    ages: { prices: quantiles(ages.prices), positions: quantiles(ages.positions), nfts: quantiles(ages.nfts) },
    stats,
    elapsedMinutes,
    priceHoles: holes!.slots,
    gapsLeft,
    runs: [...runs],
    maxLatenessMs: clock.maxLatenessMs(),
    workerOutput: workers.output(),
    simulatorPriority: simulator.priority,
  };
}

/** One tick's jobs per queue: the bound on what may wait. */
function oneTick(plan: CapacityPlan, queue: BacklogQueue): number {
  const dataset = queue === 'price-catch-up' ? 'prices' : queue;
  return plan.datasets.find((entry) => entry.dataset === dataset)!.requestsPerSlot;
}

function figuresOf(phase: PhaseResult): Figure[] {
  const { plan } = phase;
  const label = `${phase.addresses.toLocaleString('en-US')} addresses`;
  const figures: Figure[] = [
    { name: `${label}: plan: requests needed per hour`, value: Math.round(plan.neededPerHour), unit: 'req/h' },
    { name: `${label}: plan: requests the quota allows per hour`, value: plan.availablePerHour, unit: 'req/h' },
    { name: `${label}: plan: needed / allowed`, value: round(plan.ratio, 2), unit: '×' },
  ];
  for (const dataset of plan.datasets) {
    if (dataset.cadenceMinutes !== null) {
      figures.push({
        name: `${label}: plan: ${dataset.dataset} every`,
        value: round(dataset.cadenceMinutes, 1),
        unit: 'min',
      });
    }
  }
  for (const queue of BACKLOG_QUEUES) {
    figures.push({
      name: `${label}: most jobs waiting, ${queue}`,
      value: phase.maxBacklog[queue],
      unit: '',
      target: { op: '<=', value: oneTick(plan, queue) },
    });
  }
  figures.push(
    {
      name: `${label}: quota use (requests / quota × elapsed)`,
      value: round(phase.stats.requests / (QUOTA_PER_MINUTE * phase.elapsedMinutes)),
      unit: '',
      ...(plan.fits ? {} : { target: { op: '>=' as const, value: 0.9 } }),
    },
    {
      name: `${label}: 429s received`,
      value: phase.stats.byStatus['429'] ?? 0,
      unit: '',
      target: { op: '<=', value: 0 },
    },
  );
  for (const dataset of plan.datasets) {
    const { p50, p95 } = phase.ages[dataset.dataset];
    figures.push({ name: `${label}: ${dataset.dataset} age p50`, value: round(p50, 1), unit: 'min' });
    const promise =
      dataset.cadenceMinutes !== null && dataset.cronPeriodMinutes !== null
        ? dataset.cadenceMinutes + dataset.cronPeriodMinutes
        : undefined;
    figures.push({
      name: `${label}: ${dataset.dataset} age p95`,
      value: round(p95, 1),
      unit: 'min',
      ...(promise !== undefined ? { target: { op: '<=' as const, value: round(promise, 1) } } : {}),
    });
  }
  figures.push({
    name: `${label}: price slots without a price`,
    value: phase.priceHoles,
    unit: '',
    ...(plan.fits ? { target: { op: '==' as const, value: 0 } } : {}),
  });
  return figures;
}

function notesOf(phase: PhaseResult): string[] {
  const label = `${phase.addresses.toLocaleString('en-US')} addresses`;
  const perHour = (operation: string) => ((phase.stats.byOperation[operation] ?? 0) * 60) / phase.elapsedMinutes;
  const granted = phase.plan.datasets
    .map(
      (dataset) =>
        `${dataset.dataset} ${Math.round(perHour(dataset.dataset)).toLocaleString('en-US')} (plan grants ${Math.round(dataset.grantedPerHour).toLocaleString('en-US')})`,
    )
    .join(', ');
  const runs = phase.runs.map((run) => `${run.dataset} ${run.status} ${run.count}`).join(', ');
  const errors = phase.workerOutput.trim().split('\n').filter(Boolean);
  return [
    `${label}: \`chaintap plan\` at ${QUOTA}: ${describeCapacityPlan(phase.plan).join(' / ')}`,
    `${label}: ${phase.stats.requests.toLocaleString('en-US')} requests over ${round(phase.elapsedMinutes, 1)} simulated minutes; per simulated hour ${granted}; statuses ${JSON.stringify(phase.stats.byStatus)}`,
    `${label}: ${phase.backlogSamples} backlog samples (whole run), ${phase.freshnessSamples} freshness samples (after the ${WARM_UP_MINUTES}-minute warm-up); ingestion_runs ${runs}; price gaps left to fill ${phase.gapsLeft}`,
    `${label}: cron slots fired at most ${round((phase.maxLatenessMs * 60) / REAL_MS_PER_MINUTE, 1)} simulated s late (${Math.round(phase.maxLatenessMs)} ms)`,
    ...(errors.length > 0
      ? [`${label}: worker processes wrote ${errors.length} lines to stderr, the last: ${errors.at(-1)}`]
      : []),
  ];
}

export const quotaScenario: Scenario = {
  name: 'quota',
  description: `the real scheduler at ${QUOTA} on compressed time, 100 then 1,000 addresses (2.1x over): backlog, quota use, 429s, freshness against \`chaintap plan\`, price holes`,
  async run({ services, log }) {
    const phases: PhaseResult[] = [];
    for (const addresses of PHASES) phases.push(await runPhase(services, addresses, log));
    return {
      scenario: 'quota',
      figures: phases.flatMap(figuresOf),
      notes: [
        `one simulated minute every ${REAL_MS_PER_MINUTE} ms of real time: the quota of ${QUOTA} is UPSTREAM_RATE=${QUOTA_RPS}/s for the two \`chaintap worker\` processes and the simulator's strict limit (${QUOTA_RPS} in any trailing second; latency ${LATENCY_MS} ms: ${round((LATENCY_MS * 60) / REAL_MS_PER_MINUTE, 1)} simulated s); UPSTREAM_CONCURRENCY=${IN_FLIGHT} (the default); crons prices \`${CRONS.PRICE_CRON}\`, positions \`${CRONS.POSITIONS_CRON}\`, NFTs \`${CRONS.NFT_CRON}\`; ${TOKENS} watched tokens (one price batch); the scheduler is the real one, in the benchmark process, on a compressed clock; the simulator's world clock follows the simulated time`,
        `each phase: ${WARM_UP_MINUTES} simulated minutes of warm-up, then ${MEASURED_MINUTES} measured; a fresh database, Redis prefix, simulator and workers`,
        'freshness: age of each target’s newest successful tick (dataset_watermarks), simulated minutes, over targets and samples after the warm-up; target: the plan’s cadence plus one cron period',
        ...new Set(phases.map((phase) => phase.simulatorPriority)),
        ...phases.flatMap(notesOf),
      ],
    };
  },
};
