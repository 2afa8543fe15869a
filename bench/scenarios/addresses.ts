import { addWatchedAddresses } from '../../src/db/index.ts';
import type { Figure } from '../support/report.ts';
import { runAddressTick } from '../support/address-tick.ts';
import {
  achievedRate,
  createBenchPipeline,
  UPSTREAM_RPS,
  WORLD_TIME,
  type BenchPipeline,
} from '../support/pipeline.ts';
import type { KeyKind } from '../support/redis-memory.ts';
import { benchAddress, MB, round, type Scenario } from '../support/scenario.ts';
import { startTickResources, type TickResources, type TickResourcesSampler } from '../support/tick-resources.ts';
import { tickRuns } from '../support/tick-runs.ts';
import { warmUpWorkers } from '../support/warm-up.ts';
import { startWorkers } from '../support/worker-processes.ts';

const SIZES = [2_000, 10_000] as const;
const TICK_MS = 15 * 60_000;
/** Addresses of the warm-up tick each pair of fresh workers runs before the measured one. */
const WARM_UP_ADDRESSES = 300;

interface CycleFigures {
  addresses: number;
  requests: number;
  rateLimited: number;
  perSecond: number;
  maxInTrailingSecond: number;
  /** Requests the upstream received in each second from the first one. */
  arrivals: number[];
  wallSeconds: number;
  rowsWritten: number;
  succeeded: number;
  peakRss: number[];
  /** CPU, Redis memory and Postgres disk over the tick (docs/scaling.md's model). */
  resources: TickResources;
}

/** One positions + NFT tick of every watched address, through two fresh worker processes. */
async function runCycle(
  pipeline: BenchPipeline,
  addresses: number,
  tick: Date,
  log: (message: string) => void,
): Promise<CycleFigures> {
  const { database, simulator, queues } = pipeline;
  const workers = await startWorkers(2, pipeline.env, queues, ['positions', 'nfts']);
  let peakRss: number[];
  let started: Date;
  let sampler: TickResourcesSampler | undefined;
  let resources: TickResources;
  try {
    log(`addresses: warming the workers up with ${WARM_UP_ADDRESSES} addresses`);
    await warmUpWorkers(pipeline, WARM_UP_ADDRESSES, new Date(tick.getTime() - TICK_MS / 3));
    await simulator.resetStats();
    sampler = await startTickResources({
      redisUrl: pipeline.env.REDIS_URL!,
      prefix: pipeline.env.QUEUE_PREFIX!,
      database,
      workerPids: workers.pids,
      simulatorPid: simulator.pid,
    });
    started = new Date();
    log(`addresses: ${addresses} addresses, positions and NFTs at ${tick.toISOString()}`);
    await runAddressTick(pipeline, workers, tick);
    resources = await sampler.stop();
    peakRss = await workers.peakRss();
  } finally {
    sampler?.close();
    await workers.stop();
  }
  const runs = await tickRuns(database.sql, ['positions', 'nfts'], tick);
  const stats = await simulator.stats();
  const rate = achievedRate(stats);
  return {
    addresses,
    requests: rate.requests,
    rateLimited: rate.rateLimited,
    perSecond: rate.perSecond,
    maxInTrailingSecond: rate.maxInTrailingSecond,
    arrivals: stats.perSecond,
    wallSeconds: (runs.lastCommitAt!.getTime() - started.getTime()) / 1000,
    rowsWritten: runs.rowsWritten,
    succeeded: runs.succeeded,
    peakRss,
    resources,
  };
}

const KB = 1024;
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** The CPU seconds of everything that served the tick: workers, Postgres, Redis, simulator, producer. */
function pipelineCpu(cpu: TickResources['cpu']): number {
  const postgres = cpu.postgres ? cpu.postgres.database + cpu.postgres.server : 0;
  return cpu.workers + postgres + (cpu.redis ?? 0) + cpu.simulator + cpu.bench;
}

/**
 * CPU per upstream request of each component, Redis memory and Postgres disk of the tick: what
 * docs/scaling.md's capacity model rests on. Per request: per request the simulator received (its
 * 429s included); per job: per job of the tick (two per address).
 */
function resourceFigures(cycle: CycleFigures): Figure[] {
  const n = cycle.addresses.toLocaleString('en-US');
  const { cpu, redis, postgres, seconds } = cycle.resources;
  const jobs = 2 * cycle.addresses;
  const perRequest = (cpuSeconds: number) => round((cpuSeconds * 1000) / cycle.requests, 2);
  const figures: Figure[] = [{ name: `${n}: CPU per request, workers`, value: perRequest(cpu.workers), unit: 'ms' }];
  if (cpu.postgres)
    figures.push({
      name: `${n}: CPU per request, Postgres (the run's backends and the server's own processes)`,
      value: perRequest(cpu.postgres.database + cpu.postgres.server),
      unit: 'ms',
    });
  if (cpu.redis !== null)
    figures.push({ name: `${n}: CPU per request, Redis (all its clients)`, value: perRequest(cpu.redis), unit: 'ms' });
  figures.push(
    { name: `${n}: CPU per request, simulator`, value: perRequest(cpu.simulator), unit: 'ms' },
    { name: `${n}: CPU per request, benchmark process (producer)`, value: perRequest(cpu.bench), unit: 'ms' },
    { name: `${n}: cores busy, the pipeline's processes`, value: round(pipelineCpu(cpu) / seconds, 2), unit: 'cores' },
    { name: `${n}: cores busy, the whole machine`, value: round(cpu.machine / seconds, 2), unit: 'cores' },
    { name: `${n}: Redis used_memory before the tick`, value: round(redis.usedBefore / MB, 1), unit: 'MB' },
    { name: `${n}: Redis used_memory at its peak`, value: round(redis.usedPeak / MB, 1), unit: 'MB' },
    { name: `${n}: Redis used_memory after the tick`, value: round(redis.usedAfter / MB, 1), unit: 'MB' },
    {
      name: `${n}: Redis bytes of the run's keys, grown per job`,
      value: Math.round((redis.prefixAfter.bytes - redis.prefixBefore.bytes) / jobs),
      unit: 'B',
    },
    {
      name: `${n}: Postgres database grown per job`,
      value: round((postgres.databaseAfter - postgres.databaseBefore) / KB / jobs, 1),
      unit: 'KB',
    },
    { name: `${n}: WAL written per job (whole server)`, value: round(postgres.walBytes / KB / jobs, 1), unit: 'KB' },
  );
  return figures;
}

/** The raw measurements behind resourceFigures, for the notes. */
function resourceNote(cycle: CycleFigures): string {
  const { cpu, redis, postgres, seconds, loadAverage } = cycle.resources;
  const s = (value: number | null) => (value === null ? 'not visible from here' : value.toFixed(2));
  const grown = postgres.tablesGrown;
  return (
    `resources, ${cycle.addresses.toLocaleString('en-US')} addresses: over the tick's ${seconds.toFixed(1)} s ` +
    `(load average ${loadAverage.before.map((l) => l.toFixed(2)).join(' ')} at its start, ${loadAverage.after.map((l) => l.toFixed(2)).join(' ')} at its end), ` +
    `CPU seconds: workers ${s(cpu.workers)}; Postgres ${
      cpu.postgres
        ? `the run's backends ${s(cpu.postgres.database)}, the server's own processes ${s(cpu.postgres.server)}, other databases' backends ${s(cpu.postgres.other)}`
        : 'not visible from here'
    }; Redis ${s(cpu.redis)} (all its clients); simulator ${s(cpu.simulator)}; this process ${s(cpu.bench)} (producer, polling, sampling); ` +
    `the whole machine ${s(cpu.machine)}, of which other work ${s(cpu.machine - pipelineCpu(cpu))}. ` +
    `Redis used_memory before / peak / after ${count(redis.usedBefore)} / ${count(redis.usedPeak)} / ${count(redis.usedAfter)} B (${redis.samples} samples, every 250 ms); ` +
    `the run's keys ${count(redis.prefixBefore.keys)} keys, ${count(redis.prefixBefore.bytes)} B before, ${count(redis.prefixAfter.keys)} keys, ${count(redis.prefixAfter.bytes)} B after (MEMORY USAGE), ` +
    `by kind before → after: ${Object.entries(redis.prefixAfter.byKind)
      .map(([kind, bytes]) => `${kind} ${count(redis.prefixBefore.byKind[kind as KeyKind])} → ${count(bytes)}`)
      .join(', ')} B. ` +
    `Postgres database ${count(postgres.databaseBefore)} B before, ${count(postgres.databaseAfter)} B after; grown: history ${count(grown.history)} B, state ${count(grown.state)} B, ` +
    `runs and watermarks ${count(grown.runs)} B, raw responses ${count(grown.raw)} B; WAL ${count(postgres.walBytes)} B (whole server)`
  );
}

/** 2,000 then 10,000 watched addresses (10 positions, 5 NFT collections each) at UPSTREAM_RPS=200. */
export const addressesScenario: Scenario = {
  name: 'addresses',
  description:
    'positions + NFTs of 2,000 then 10,000 addresses at UPSTREAM_RPS=200, two worker processes: rate use, 429s, rows/s, peak RSS, growth',
  async run({ services, log }) {
    const pipeline = await createBenchPipeline(services, 'addresses');
    try {
      const cycles: CycleFigures[] = [];
      let watched = 0;
      for (const [index, size] of SIZES.entries()) {
        for (; watched < size; watched += 1000) {
          await addWatchedAddresses(
            pipeline.database,
            Array.from({ length: Math.min(1000, size - watched) }, (_, i) => benchAddress(watched + i)),
            {},
          );
        }
        cycles.push(await runCycle(pipeline, size, new Date(WORLD_TIME + index * TICK_MS), log));
      }
      const figures: Figure[] = [];
      for (const cycle of cycles) {
        const n = cycle.addresses.toLocaleString('en-US');
        figures.push(
          {
            name: `${n}: achieved rate / limit`,
            value: round(cycle.perSecond / UPSTREAM_RPS),
            unit: '',
            // The pacer's ceiling is 0.962 (rate-limiter.ts); the issue's target at 100/s is 0.90.
            target: { op: '>=', value: 0.9 },
          },
          { name: `${n}: 429s received`, value: cycle.rateLimited, unit: '', target: { op: '<=', value: 0 } },
          {
            name: `${n}: peak RSS, largest worker`,
            value: round(Math.max(...cycle.peakRss) / MB, 0),
            unit: 'MB',
            target: { op: '<=', value: 256 },
          },
          { name: `${n}: upstream requests (2 per address, plus 429s retried)`, value: cycle.requests, unit: '' },
          { name: `${n}: achieved requests per second`, value: round(cycle.perSecond, 1), unit: 'req/s' },
          { name: `${n}: most requests in a trailing second`, value: cycle.maxInTrailingSecond, unit: '' },
          { name: `${n}: wall time`, value: round(cycle.wallSeconds, 1), unit: 's' },
          {
            name: `${n}: rows written per second`,
            value: Math.round(cycle.rowsWritten / cycle.wallSeconds),
            unit: 'rows/s',
          },
          {
            name: `${n}: jobs succeeded`,
            value: cycle.succeeded,
            unit: '',
            target: { op: '==', value: 2 * cycle.addresses },
          },
        );
      }
      for (const cycle of cycles) figures.push(...resourceFigures(cycle));
      const [small, large] = cycles;
      figures.unshift({
        name: 'wall time 10,000 / 2,000',
        value: round(large!.wallSeconds / small!.wallSeconds, 2),
        unit: '×',
        target: { op: '<=', value: 5.2 },
      });
      return {
        scenario: 'addresses',
        figures,
        notes: [
          pipeline.simulator.priority,
          `two \`chaintap worker\` processes (UPSTREAM_RPS=${UPSTREAM_RPS}, UPSTREAM_CONCURRENCY=${pipeline.env.UPSTREAM_CONCURRENCY}, DATABASE_POOL_SIZE=${pipeline.env.DATABASE_POOL_SIZE ?? 10}), started fresh for each size and warmed up with a tick of ${WARM_UP_ADDRESSES} addresses before the measured one (long-running workers are warm when a cron slot comes)`,
          'wall time: producer enqueueing the tick to the last job commit; rate: requests at the simulator over the span from its first to its last request',
          'the 10,000 tick is written on top of the 2,000 tick (same database): the first 2,000 addresses update their positions',
          'peak RSS: VmHWM of each worker process (the node process itself)',
          ...cycles.map((cycle) => {
            // The last second is partial: left out of the lowest.
            const full = cycle.arrivals.slice(0, -1);
            const short = full.flatMap((count, second) => (count < 0.95 * UPSTREAM_RPS ? [`${second}: ${count}`] : []));
            return (
              `requests the upstream received per second, ${cycle.addresses.toLocaleString('en-US')} addresses: first 10 s ${cycle.arrivals.slice(0, 10).join(' ')}; ` +
              `lowest whole second ${full.length ? Math.min(...full) : '-'}, over ${full.length} s; ` +
              `${short.length} s under 0.95 of the limit${short.length ? ` (second: requests) ${short.join(', ')}` : ''}`
            );
          }),
          "resources: CPU from /proc/<pid>/stat (every thread) of the worker processes, the simulator and redis-server, and of the Postgres server split by process (backends by the database in their title); this process by process.cpuUsage(); the machine from /proc/stat. Redis and Postgres serve other work on the machine too: the run's keys (MEMORY USAGE) and its database are its own, used_memory, Redis CPU and WAL are not",
          ...cycles.map(resourceNote),
        ],
      };
    } finally {
      await pipeline.close();
    }
  },
};
