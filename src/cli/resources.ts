import type { Redis } from 'ioredis';
import type { Context } from '../runtime/context.js';
import type { Shutdown } from '../runtime/shutdown.js';
import { ChaintapError } from '../errors.js';
import { createDatabase, type Database } from '../db/client.js';
import { closeQueues, createQueues, type Queues } from '../queue/queues.js';
import { checkEvictionPolicy, createRedisConnection } from '../runtime/redis-connection.js';
import { createTickTracker, type TickTracker } from '../queue/tick-tracker.js';
import { createUpstreamClient, transportSettings, type UpstreamClient } from '../upstream/client.js';
import { createSenderThread } from '../upstream/sender-thread.js';
import { senderThreadStepDown } from './process-tuning.js';

/** The connections a command works with, each added to the command's shutdown as it is opened. */
export interface Resources {
  database: Database;
  redis: Redis;
  queues: Queues;
  tracker: TickTracker;
}

/** How long a command waits for Redis at start before it says so, instead of hanging. */
const REDIS_READY_TIMEOUT_MS = 10_000;

export async function openResources(context: Context, shutdown: Shutdown): Promise<Resources> {
  const { options, logger, metrics } = context;
  // Postgres first, so that it closes last (queues, then Redis, then Postgres). The pool connects
  // on its first query, not here.
  const database = createDatabase(options.DATABASE_URL, { max: options.DATABASE_POOL_SIZE, metrics, logger });
  shutdown.add('postgres', () => database.close());
  const redis = createRedisConnection(options.REDIS_URL, 'worker');
  shutdown.add('redis', () => redis.disconnect());
  // ioredis reconnects by itself; without a listener each failed attempt is an unhandled 'error' event.
  redis.on('error', (error) => logger.warn({ err: error.message }, 'Redis connection error; reconnecting'));
  await waitUntilReady(redis, options.REDIS_URL);
  await checkEvictionPolicy(redis, logger);
  const queues = createQueues(redis, options.QUEUE_PREFIX);
  shutdown.add('queues', () => closeQueues(queues));
  const tracker = createTickTracker(redis, options.QUEUE_PREFIX);
  return { database, redis, queues, tracker };
}

function waitUntilReady(redis: Redis, url: string): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      // Host and port only: the URL may carry a password.
      const { host } = new URL(url);
      reject(new ChaintapError(`cannot reach Redis at ${host} within ${REDIS_READY_TIMEOUT_MS / 1000} s (REDIS_URL)`));
    }, REDIS_READY_TIMEOUT_MS);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', onReady);
  });
}

/**
 * The upstream client, its request budget shared through Redis with every other process. Requests
 * go out from the sender thread (src/upstream/sender-thread.ts), so that they leave at their start
 * times however busy this thread is.
 */
export function openUpstreamClient(context: Context): UpstreamClient {
  const { options, logger, metrics } = context;
  const transport = createSenderThread({
    ...transportSettings(options),
    limiter: {
      kind: 'shared',
      redisUrl: options.REDIS_URL,
      key: `${options.QUEUE_PREFIX}:upstream:pace`,
      rps: options.UPSTREAM_RPS,
    },
    onStarted: senderThreadStepDown(options, logger),
    logger,
  });
  return createUpstreamClient({ options, logger, metrics, transport });
}
