import { setMaxListeners } from 'node:events';
import { Worker, type Job } from 'bullmq';
import type { RedisClient } from '../runtime/redis-connection.ts';
import type { Context } from '../runtime/context.ts';
import type { Options } from '../config/options.ts';
import type { Database } from '../db/client.ts';
import { createRedisConnection } from '../runtime/redis-connection.ts';
import { redisTopology } from '../config/redis-topology.ts';
import { assertHeapFitsAnswers } from '../config/memory-budget.ts';
import { createPriceGaps } from '../queue/price-gaps.ts';
import { queueKeyPrefix } from '../queue/redis-keys.ts';
import { sleep } from '../runtime/sleep.ts';
import type { TickTracker } from '../queue/tick-tracker.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import type { IngestionDeps } from './ingestion-job.ts';
import { processMaintenance } from './process-maintenance.ts';
import { processNfts, processPositions } from './process-snapshots.ts';
import { processPrices } from './process-prices.ts';
import { JobLockLostError } from './job-lock.ts';
import { QUEUE_NAMES, type QueueName } from '../datasets.ts';

type JobProcessor = (job: Job, signal: AbortSignal) => Promise<unknown>;

const PROCESSORS: Record<QueueName, (deps: IngestionDeps, client: UpstreamClient) => JobProcessor> = {
  prices: processPrices,
  'price-catch-up': processPrices,
  positions: processPositions,
  nfts: processNfts,
  maintenance: processMaintenance,
};

export interface WorkerPool {
  workers: Worker[];
  /** Stops taking jobs, lets active ones finish within the grace period, then forces the rest. */
  close(): Promise<void>;
}

export interface WorkerPoolDeps {
  context: Context;
  database: Database;
  client: UpstreamClient;
  tracker: TickTracker;
  /** The queues' Redis, for the price gaps. */
  redis: RedisClient;
  queueNames?: readonly QueueName[];
}

/**
 * BullMQ workers, one per queue (jobs at a time: concurrencyOf); the upstream rate limit is the
 * client's shared pacer alone. A job whose lock could not be renewed is aborted.
 */
export function createWorkerPool(deps: WorkerPoolDeps): WorkerPool {
  const { context, client } = deps;
  const { options, logger } = context;
  assertHeapFitsAnswers(options);
  const names = deps.queueNames ?? QUEUE_NAMES;
  // Aborted only when the grace period runs out: a SIGTERM lets active requests finish.
  const hardStop = new AbortController();
  // Every in-flight request listens to it: hundreds of listeners are expected, not a leak.
  setMaxListeners(0, hardStop.signal);
  const connections: RedisClient[] = [];
  const priceGaps = createPriceGaps(deps.redis, options.QUEUE_PREFIX);

  const ingestion: IngestionDeps = { context, database: deps.database, tracker: deps.tracker, priceGaps };
  const topology = redisTopology(options);

  const workers = names.map((name) => {
    const process = PROCESSORS[name](ingestion, client);
    const connection = createRedisConnection(topology, 'worker');
    connections.push(connection);
    /** Each running job's abort, for when its lock is lost. */
    const running = new Map<string, AbortController>();
    const worker = new Worker(
      name,
      async (job) => {
        const lease = new AbortController();
        running.set(job.id!, lease);
        try {
          return await process(job, AbortSignal.any([hardStop.signal, lease.signal]));
        } finally {
          running.delete(job.id!);
        }
      },
      {
        connection,
        prefix: queueKeyPrefix(options.QUEUE_PREFIX, name),
        concurrency: concurrencyOf(name, options),
        // The lock is renewed while a job runs; when it expires (the worker died, or was starved past
        // JOB_LOCK_MS), another worker takes the job and this one stops it (lockRenewalFailed).
        lockDuration: options.JOB_LOCK_MS,
        stalledInterval: options.JOB_LOCK_MS,
        // Ingestion jobs fail themselves, recorded, once they stalled JOB_MAX_STALLS times
        // (stall-limit.ts); BullMQ fails any other job (housekeeping) one stall later.
        maxStalledCount: options.JOB_MAX_STALLS,
        autorun: true,
      },
    );
    worker.on('error', (error) => logger.error({ queue: name, err: error.message }, 'worker error'));
    worker.on('lockRenewalFailed', (jobIds) => {
      logger.warn({ queue: name, jobIds }, 'job locks lost (not renewed within JOB_LOCK_MS): those jobs stop here');
      for (const jobId of jobIds) running.get(jobId)?.abort(new JobLockLostError(jobId));
    });
    return worker;
  });

  return {
    workers,
    async close() {
      const closeAll = (force: boolean) => Promise.all(workers.map((worker) => worker.close(force)));
      if (!(await settlesWithin(closeAll(false), options.SHUTDOWN_GRACE_MS))) {
        logger.warn(
          { graceMs: options.SHUTDOWN_GRACE_MS },
          'grace period over: aborting active jobs (they will be retried)',
        );
        hardStop.abort();
        await settlesWithin(closeAll(true), 5_000);
      }
      for (const connection of connections) connection.disconnect();
    },
  };
}

/** UPSTREAM_CONCURRENCY; a quarter of it for the catch-up, whose requests wait behind every other. */
function concurrencyOf(name: QueueName, options: Options): number {
  if (name === 'maintenance') return 1;
  if (name === 'price-catch-up') return Math.max(1, Math.floor(options.UPSTREAM_CONCURRENCY / 4));
  return options.UPSTREAM_CONCURRENCY;
}

/** Whether `work` settles within `ms`; the timer stops either way, so that it does not hold the process. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = new AbortController();
  try {
    return await Promise.race([work.then(() => true), sleep(ms, settled.signal).then(() => false)]);
  } finally {
    settled.abort();
  }
}
