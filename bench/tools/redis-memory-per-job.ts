/**
 * Redis memory per job, for the capacity model in docs/scaling.md (not a test: sizes belong in the
 * docs, not in assertions):
 *   node bench/tools/redis-memory-per-job.ts [redis-url] [jobs-per-dataset] [datasets]
 * (defaults redis://127.0.0.1:6379, 10,000 and prices,positions,nfts). For each dataset it enqueues that many jobs of one
 * tick the way the producer does (the pending-targets claim, the tick tracker's expect, addBulk in
 * slices with the configured job options; the time it takes is printed), into a scratch prefix of its own, then runs them through
 * a worker that marks each job finished in the tick tracker and returns at once (what the completed
 * jobs, kept a day, and the tracker's sets, kept 3 days, hold). Bytes are the sum of
 * MEMORY USAGE over the prefix's keys, which other users of the same Redis cannot disturb; INFO
 * used_memory before and after is printed beside it. The prefix is deleted at the end, also on error.
 */
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { loadOptions } from '../../src/config/options.ts';
import { jobOptions } from '../../src/queue/job-options.ts';
import { createPendingTargets } from '../../src/queue/pending-targets.ts';
import { createTickTracker } from '../../src/queue/tick-tracker.ts';
import type { JobResult } from '../../src/queue/jobs.ts';
import { missingJobIds } from '../../src/queue/missing-jobs.ts';
import { nftJobs, positionJobs, priceJobs, type PlannedJob } from '../../src/scheduler/job-builders.ts';
import type { Dataset } from '../../src/datasets.ts';
import { keysPattern, queueKeyPrefix } from '../../src/queue/redis-keys.ts';
import { prefixMemory, usedMemory, type PrefixMemory } from '../support/redis-memory.ts';

const REDIS_URL = process.argv[2] ?? 'redis://127.0.0.1:6379';
const JOBS = Number(process.argv[3] ?? 10_000);
const DATASETS = (process.argv[4] ?? 'prices,positions,nfts').split(',') as Dataset[];
const PREFIX = `chaintap-measure-${randomBytes(4).toString('hex')}`;
const TICK = new Date(Date.UTC(2026, 10, 24, 12, 15));
const SLICE = 200; // as the producer's ENQUEUE_SLICE

/** Real-shaped Sui identifiers: a 0x + 64 hex address; a coin type `0x<64 hex>::module::NAME`. */
const hex64 = () => randomBytes(32).toString('hex');
const suiAddress = () => `0x${hex64()}`;
const coinType = (i: number) => `0x${hex64()}::token${i}::TOKEN${i}`;

function plannedJobs(dataset: Dataset, count: number): PlannedJob<unknown>[] {
  if (dataset === 'prices') {
    const coins = Array.from({ length: count * 50 }, (_, i) => coinType(i));
    return priceJobs(coins, TICK, { slotEnd: new Date(TICK.getTime() + 60_000) });
  }
  const addresses = Array.from({ length: count }, () => ({
    address: suiAddress(),
    chain: null,
    protocols: null,
    nftChain: 'SUI',
    includePnl: false,
  }));
  return dataset === 'positions' ? positionJobs(addresses, TICK, false) : nftJobs(addresses, TICK);
}

async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  for await (const batch of redis.scanStream({ match: keysPattern(prefix), count: 1000 })) {
    if ((batch as string[]).length > 0) await redis.unlink(...(batch as string[]));
  }
}

async function measure(redis: Redis, dataset: Dataset): Promise<void> {
  const prefix = `${PREFIX}-${dataset}`;
  const options = loadOptions({ QUEUE_PREFIX: prefix }, {});
  const queue = new Queue(dataset, { connection: redis, prefix: queueKeyPrefix(prefix, dataset) });
  const jobs = plannedJobs(dataset, JOBS);
  const workerConnection = redis.duplicate();
  const before = await usedMemory(redis);
  try {
    // What the producer does per job (produceTick without its Postgres reads), timed.
    const started = performance.now();
    await missingJobIds(
      redis,
      queue,
      jobs.map((job) => job.opts.jobId),
    );
    await createPendingTargets(redis, prefix).claim(
      dataset,
      jobs.map((job) => ({ target: job.target, tick: TICK, jobId: job.opts.jobId })),
    );
    const tracker = createTickTracker(redis, prefix);
    await tracker.expect(
      dataset,
      TICK,
      jobs.map((job) => job.opts.jobId),
    );
    const defaults = jobOptions(options);
    for (let i = 0; i < jobs.length; i += SLICE) {
      await queue.addBulk(
        jobs.slice(i, i + SLICE).map((job) => ({ name: job.name, data: job.data, opts: { ...defaults, ...job.opts } })),
      );
    }
    const enqueueMs = performance.now() - started;
    const waiting = await prefixMemory(redis, prefix);
    const afterWaiting = await usedMemory(redis);

    // Complete every job with a typical return value: the completed set kept for 24 h.
    let done = 0;
    const finished = new Promise<void>((resolve, reject) => {
      const worker = new Worker(
        dataset,
        async (job): Promise<JobResult> => {
          await tracker.finish(dataset, TICK, job.id ?? '');
          return { outcome: 'succeeded', rowsWritten: 15 };
        },
        { connection: workerConnection, prefix: queueKeyPrefix(prefix, dataset), concurrency: 50 },
      );
      worker.on('completed', () => {
        done += 1;
        if (done === jobs.length) void worker.close().then(resolve);
      });
      worker.on('failed', (_job, error) => void worker.close().then(() => reject(error)));
    });
    await finished;
    const completed = await prefixMemory(redis, prefix);
    const afterCompleted = await usedMemory(redis);

    const per = (bytes: number) => (bytes / jobs.length).toFixed(0);
    const show = (state: string, sum: PrefixMemory, info: number) => {
      const { tracker, pendingTargets } = sum.byKind;
      return (
        `  ${state}: ${per(sum.bytes)} B/job in ${sum.keys} keys (BullMQ ${per(sum.bytes - tracker - pendingTargets)}, ` +
        `tick tracker ${per(tracker)}, pending targets ${per(pendingTargets)}); INFO used_memory +${per(info - before)} B/job`
      );
    };
    console.log(
      `${dataset}: ${jobs.length} jobs of one tick, enqueued in ${(enqueueMs / 1000).toFixed(1)} s ` +
        `(${(enqueueMs / jobs.length).toFixed(3)} ms/job)`,
    );
    console.log(show('waiting', waiting, afterWaiting));
    console.log(show('completed', completed, afterCompleted));
  } finally {
    await queue.close();
    workerConnection.disconnect();
    await deletePrefix(redis, prefix);
  }
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  try {
    const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
    console.log(`Redis ${version}, scratch prefix ${PREFIX}-<dataset>, ${JOBS} jobs per dataset`);
    for (const dataset of DATASETS) await measure(redis, dataset);
  } finally {
    redis.disconnect();
  }
}

await main();
