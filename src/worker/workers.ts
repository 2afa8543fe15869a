import { setMaxListeners } from 'node:events';
import { Worker, type Job } from 'bullmq';
import type { RedisClient } from '../runtime/redis-connection.ts';
import type { Context } from '../runtime/context.ts';
import type { Options } from '../config/options.ts';
import type { Database } from '../db/client.ts';
import type { Queues } from '../queue/queues.ts';
import { createRedisConnection } from '../runtime/redis-connection.ts';
import { redisTopology } from '../config/redis-topology.ts';
import { createPriceGaps } from '../queue/price-gaps.ts';
import { queueKeyPrefix } from '../queue/redis-keys.ts';
import { sleep } from '../runtime/sleep.ts';
import type { TickTracker } from '../queue/tick-tracker.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import type { IngestionDeps } from './ingestion-job.ts';
import { processMaintenance } from './process-maintenance.ts';
import { processNfts } from './process-nfts.ts';
import { processPositions } from './process-positions.ts';
import { processPrices } from './process-prices.ts';
import { QUEUE_NAMES, type QueueName } from '../datasets.ts';

type JobProcessor = (job: Job, signal: AbortSignal) => Promise<unknown>;

export interface WorkerPool {
  workers: Worker[];
  /** Stops taking jobs, lets active ones finish within the grace period, then forces the rest. */
  close(): Promise<void>;
}

export interface WorkerPoolDeps {
  context: Context;
  database: Database;
  client: UpstreamClient;
  queues: Queues;
  tracker: TickTracker;
  /** The queues' Redis, for the price gaps. */
  redis: RedisClient;
  queueNames?: readonly QueueName[];
}

/**
 * BullMQ workers, one per queue, each with UPSTREAM_CONCURRENCY jobs at a time. The upstream rate
 * limit itself is enforced by the client's Redis-shared pacer across all processes; the BullMQ
 * limiter below is a loose backstop that also enables queue.rateLimit() for 429s.
 */
export function createWorkerPool(deps: WorkerPoolDeps): WorkerPool {
  const { context, client, queues } = deps;
  const { options, logger } = context;
  const names = deps.queueNames ?? QUEUE_NAMES;
  // Aborted only when the grace period runs out: a SIGTERM lets active requests finish.
  const hardStop = new AbortController();
  // Every in-flight request listens to it: hundreds of listeners are expected, not a leak.
  setMaxListeners(0, hardStop.signal);
  const connections: RedisClient[] = [];
  const priceGaps = createPriceGaps(deps.redis, options.QUEUE_PREFIX);

  const workers = names.map((name) => {
    const ingestion: IngestionDeps = {
      context,
      database: deps.database,
      tracker: deps.tracker,
      queue: queues[name],
      priceGaps,
    };
    const process = processorFor(name, ingestion, client);
    const connection = createRedisConnection(redisTopology(options), 'worker');
    connections.push(connection);
    const worker = new Worker(name, (job) => process(job, hardStop.signal), {
      connection,
      prefix: queueKeyPrefix(options.QUEUE_PREFIX, name),
      concurrency: concurrencyOf(name, options),
      limiter: { max: Math.max(1, Math.ceil(options.UPSTREAM_RPS * 2)), duration: 1000 },
      // The lock is renewed while a job runs; it expiring means the worker died: another takes the job.
      lockDuration: options.JOB_LOCK_MS,
      stalledInterval: options.JOB_LOCK_MS,
      maxStalledCount: 3,
      autorun: true,
    });
    worker.on('error', (error) => logger.error({ queue: name, err: error.message }, 'worker error'));
    return worker;
  });

  return {
    workers,
    async close() {
      const graceful = Promise.all(workers.map((worker) => worker.close()));
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<'expired'>((resolve) => {
        timer = setTimeout(() => resolve('expired'), options.SHUTDOWN_GRACE_MS);
      });
      const outcome = await Promise.race([graceful.then(() => 'closed' as const), expired]);
      clearTimeout(timer);
      if (outcome === 'expired') {
        logger.warn(
          { graceMs: options.SHUTDOWN_GRACE_MS },
          'grace period over: aborting active jobs (they will be retried)',
        );
        hardStop.abort();
        // The wait is cut short once the workers close, so that its timer does not hold the process.
        const closed = new AbortController();
        try {
          await Promise.race([Promise.all(workers.map((worker) => worker.close(true))), sleep(5_000, closed.signal)]);
        } finally {
          closed.abort();
        }
      }
      for (const connection of connections) connection.disconnect();
    },
  };
}

/** A queue takes at most the jobs the quota can start in this many seconds (see concurrencyOf). */
const IN_FLIGHT_HORIZON_S = 10;

/**
 * Jobs at a time per queue: UPSTREAM_CONCURRENCY for the datasets, but no more than the quota starts
 * in IN_FLIGHT_HORIZON_S (at 40/min: 7), because a job a worker has taken waits for its start and can
 * no longer be superseded by a newer tick; a quarter of that for the price catch-up, whose requests
 * wait for the quota after every current one, so that they never take all the slots; one for
 * maintenance.
 */
function concurrencyOf(name: QueueName, options: Options): number {
  if (name === 'maintenance') return 1;
  const datasets = Math.min(
    options.UPSTREAM_CONCURRENCY,
    Math.max(1, Math.ceil(options.UPSTREAM_RPS * IN_FLIGHT_HORIZON_S)),
  );
  if (name === 'price-catch-up') return Math.max(1, Math.floor(datasets / 4));
  return datasets;
}

function processorFor(name: QueueName, deps: IngestionDeps, client: UpstreamClient): JobProcessor {
  switch (name) {
    case 'prices':
    case 'price-catch-up':
      return processPrices(deps, client) as JobProcessor;
    case 'positions':
      return processPositions(deps, client) as JobProcessor;
    case 'nfts':
      return processNfts(deps, client) as JobProcessor;
    case 'maintenance':
      return processMaintenance(deps, client) as JobProcessor;
  }
}
