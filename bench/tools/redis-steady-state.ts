/**
 * Redis memory at steady state, per 1,000 wallets (docs/operations.md "Redis memory"; not a test):
 *   node bench/tools/redis-steady-state.ts [redis-url] [wallets] [hours]
 * (defaults redis://127.0.0.1:6379, 100 wallets, 80 hours). It runs `hours` of logical time at the
 * default crons (prices every minute: one job of 50 coin types; positions every 15 minutes and NFTs
 * every hour: one job per wallet each) the way the producer enqueues a tick (the pending-targets
 * claim, the tick tracker's expect, addBulk in slices with the configured job options), into a
 * scratch prefix of its own, and completes each minute's jobs through a worker that marks each
 * finished in the tick tracker and returns a JobResult, before the next minute.
 *
 * Logical time: this process's Date.now is the logical clock, so BullMQ's removeOnComplete counts
 * ages in it (the worker passes Date.now to Redis); Redis's own clock is real, so the tool deletes
 * the tracker's keys of a tick once the tracker's TTL has passed in logical time, as EXPIRE would.
 * Every 6 logical hours it prints the prefix's keys and bytes (MEMORY USAGE summed), by dataset and
 * kind; at the end, per 1,000 wallets (positions and NFTs scaled from `wallets`; prices are per
 * 50 tokens, whatever the wallets). The prefix is deleted at the end, also on error.
 */
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { loadOptions } from '../../src/config/options.ts';
import { jobOptions } from '../../src/queue/job-options.ts';
import { createPendingTargets } from '../../src/queue/pending-targets.ts';
import { createTickTracker, TTL_SECONDS as TICK_TTL_SECONDS } from '../../src/queue/tick-tracker.ts';
import type { JobResult } from '../../src/queue/jobs.ts';
import { nftJobs, positionJobs, priceJobs, type PlannedJob } from '../../src/scheduler/job-builders.ts';
import type { Dataset } from '../../src/datasets.ts';
import { keysPattern, queueKeyPrefix, tickKeys } from '../../src/queue/redis-keys.ts';
import { tickLabel } from '../../src/queue/jobs.ts';
import { usedMemory } from '../support/redis-memory.ts';

const REDIS_URL = process.argv[2] ?? 'redis://127.0.0.1:6379';
const WALLETS = Number(process.argv[3] ?? 100);
const HOURS = Number(process.argv[4] ?? 80);
const PREFIX = `chaintap-steady-${randomBytes(4).toString('hex')}`;
const START = Date.UTC(2026, 10, 1);
const SLICE = 1000; // as the producer's ENQUEUE_SLICE
const DATASETS: Dataset[] = ['prices', 'positions', 'nfts'];

const realNow = Date.now.bind(Date);
let logicalNow = START;
Date.now = () => logicalNow;

const hex64 = () => randomBytes(32).toString('hex');
const addresses = Array.from({ length: WALLETS }, () => ({
  address: `0x${hex64()}`,
  chain: null,
  protocols: null,
  nftChain: 'SUI',
  includePnl: false,
}));
const coins = Array.from({ length: 50 }, (_, i) => `0x${hex64()}::token${i}::TOKEN${i}`);

/** The jobs of the datasets whose cron fires at `minute` (the default crons: each minute, each 15 minutes, each hour). */
function jobsAt(minute: number, tick: Date): [Dataset, PlannedJob<unknown>[]][] {
  const due: [Dataset, PlannedJob<unknown>[]][] = [
    ['prices', priceJobs(coins, tick, { slotEnd: new Date(tick.getTime() + 60_000) })],
  ];
  if (minute % 15 === 0) due.push(['positions', positionJobs(addresses, tick, false)]);
  if (minute % 60 === 0) due.push(['nfts', nftJobs(addresses, tick)]);
  return due;
}

type Sum = { keys: number; bytes: number };
/** Bytes and keys by dataset (a queue's keys, its ticks' tracker keys, its pending targets) and kind. */
async function memoryByDataset(redis: Redis): Promise<Map<string, Sum>> {
  const sums = new Map<string, Sum>();
  const add = (name: string, bytes: number) => {
    const sum = sums.get(name) ?? { keys: 0, bytes: 0 };
    sum.keys += 1;
    sum.bytes += bytes;
    sums.set(name, sum);
  };
  for await (const batch of redis.scanStream({ match: keysPattern(PREFIX), count: 1000 })) {
    const keys = batch as string[];
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    for (const [index, [error, bytes]] of ((await pipeline.exec()) ?? []).entries()) {
      if (error) throw error;
      if (bytes === null) continue;
      add(describeKey(keys[index]!), Number(bytes));
    }
  }
  return sums;
}

/** `positions jobs`, `positions queue`, `positions events`, `positions tracker`, `positions pending targets`. */
function describeKey(key: string): string {
  const group = key.slice(PREFIX.length + 2, key.indexOf('}'));
  if (group.startsWith('tick:')) return `${group.split(':')[1]} tracker`;
  if (group.startsWith('pending-targets:')) return `${group.split(':')[1]} pending targets`;
  const name = key.slice(key.indexOf('}') + 1 + group.length + 2);
  if (name === 'events') return `${group} events`;
  return name.startsWith(`${group}-`) ? `${group} jobs` : `${group} queue`;
}

function report(label: string, sums: Map<string, Sum>): void {
  const total = [...sums.values()].reduce((sum, s) => ({ keys: sum.keys + s.keys, bytes: sum.bytes + s.bytes }), {
    keys: 0,
    bytes: 0,
  });
  console.log(`${label}: ${total.keys} keys, ${(total.bytes / 1e6).toFixed(2)} MB`);
  for (const [name, sum] of [...sums].sort(([a], [b]) => a.localeCompare(b)))
    console.log(
      `  ${name.padEnd(26)} ${String(sum.keys).padStart(8)} keys ${(sum.bytes / 1e6).toFixed(3).padStart(10)} MB`,
    );
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const workerConnection = redis.duplicate();
  const options = loadOptions({ QUEUE_PREFIX: PREFIX }, {});
  const defaults = jobOptions(options);
  const tracker = createTickTracker(redis, PREFIX);
  const targets = createPendingTargets(redis, PREFIX);
  const queues = Object.fromEntries(
    DATASETS.map((dataset) => [
      dataset,
      new Queue(dataset, { connection: redis, prefix: queueKeyPrefix(PREFIX, dataset) }),
    ]),
  ) as Record<Dataset, Queue>;
  let outstanding = 0;
  let allDone: () => void = () => undefined;
  const workers = DATASETS.map((dataset) => {
    const worker = new Worker(
      dataset,
      async (job): Promise<JobResult> => {
        await tracker.finish(dataset, new Date((job.data as { tick: string }).tick), job.id ?? '');
        return { outcome: 'succeeded', rowsWritten: 15 };
      },
      { connection: workerConnection, prefix: queueKeyPrefix(PREFIX, dataset), concurrency: 50 },
    );
    worker.on('completed', () => {
      outstanding -= 1;
      if (outstanding === 0) allDone();
    });
    worker.on('failed', (_job, error) => {
      throw error;
    });
    return worker;
  });
  const before = await usedMemory(redis);
  const ticks: { at: number; stream: Dataset; tick: Date }[] = [];
  const started = realNow();
  try {
    console.log(
      `Redis ${/redis_version:(\S+)/.exec(await redis.info('server'))?.[1]}, ${WALLETS} wallets, ${HOURS} logical hours, ` +
        `removeOnComplete ${JSON.stringify(defaults.removeOnComplete)}, tracker TTL ${TICK_TTL_SECONDS / 3600} h, prefix ${PREFIX}`,
    );
    for (let minute = 0; minute < HOURS * 60; minute++) {
      logicalNow = START + minute * 60_000;
      const tick = new Date(logicalNow);
      // The tracker's keys of ticks past its TTL, as Redis would expire them in real time.
      while (ticks.length > 0 && ticks[0]!.at + TICK_TTL_SECONDS * 1000 <= logicalNow) {
        const old = ticks.shift()!;
        await redis.unlink(...tickKeys(PREFIX, old.stream, tickLabel(old.tick)));
      }
      const due = jobsAt(minute, tick);
      // Counted before any is added: a dataset's jobs may all complete before the next is added.
      outstanding = due.reduce((sum, [, jobs]) => sum + jobs.length, 0);
      const done = new Promise<void>((resolve) => (allDone = resolve));
      for (const [dataset, jobs] of due) {
        await targets.claim(
          dataset,
          jobs.map((job) => ({ target: job.target, tick, jobId: job.opts.jobId })),
        );
        await tracker.expect(
          dataset,
          tick,
          jobs.map((job) => job.opts.jobId),
        );
        ticks.push({ at: logicalNow, stream: dataset, tick });
        for (let i = 0; i < jobs.length; i += SLICE) {
          await queues[dataset].addBulk(
            jobs
              .slice(i, i + SLICE)
              .map((job) => ({ name: job.name, data: job.data, opts: { ...defaults, ...job.opts } })),
          );
        }
      }
      await done;
      if ((minute + 1) % 360 === 0) {
        const seconds = ((realNow() - started) / 1000).toFixed(0);
        report(`after ${(minute + 1) / 60} logical hours (${seconds} s)`, await memoryByDataset(redis));
      }
    }
    const sums = await memoryByDataset(redis);
    const bytes = (name: string) => sums.get(name)?.bytes ?? 0;
    const scale = 1000 / WALLETS;
    const perDataset = (dataset: Dataset) => ({
      jobs: bytes(`${dataset} jobs`) + bytes(`${dataset} queue`),
      tracker: bytes(`${dataset} tracker`),
      pending: bytes(`${dataset} pending targets`),
      events: bytes(`${dataset} events`),
    });
    const mb = (n: number) => (n / 1e6).toFixed(2);
    for (const dataset of DATASETS) {
      const { jobs, tracker: tracked, pending, events } = perDataset(dataset);
      const factor = dataset === 'prices' ? 1 : scale;
      console.log(
        `${dataset} ${dataset === 'prices' ? 'per 50 tokens' : 'per 1,000 wallets'}: completed jobs and queue ${mb(jobs * factor)} MB, ` +
          `tracker ${mb(tracked * factor)} MB, pending targets ${mb(pending * factor)} MB; events stream ${mb(events)} MB (capped, per queue)`,
      );
    }
    console.log(
      `INFO used_memory grew ${mb((await usedMemory(redis)) - before)} MB (the whole Redis, other users included)`,
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
    await Promise.all(Object.values(queues).map((queue) => queue.close()));
    workerConnection.disconnect();
    for await (const batch of redis.scanStream({ match: keysPattern(PREFIX), count: 1000 })) {
      if ((batch as string[]).length > 0) await redis.unlink(...(batch as string[]));
    }
    redis.disconnect();
  }
}

await main();
