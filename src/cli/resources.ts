import type { Redis } from 'ioredis';
import type { Context } from '../context.js';
import { ChaintapError } from '../errors.js';
import { createDatabase, type Database } from '../db/client.js';
import { closeQueues, createQueues, type Queues } from '../queue/queues.js';
import { checkEvictionPolicy, createRedisConnection } from '../queue/redis-connection.js';
import { createTickTracker, type TickTracker } from '../queue/tick-tracker.js';
import { createUpstreamClient, transportSettings, type UpstreamClient } from '../upstream/client.js';
import { createSenderThread } from '../upstream/sender-thread.js';

/** The connections a command works with, opened once and closed together. */
export interface Resources {
  database: Database;
  redis: Redis;
  queues: Queues;
  tracker: TickTracker;
  close(): Promise<void>;
}

/** How long a command waits for Redis at start before it says so, instead of hanging. */
const REDIS_READY_TIMEOUT_MS = 10_000;

export async function openResources(context: Context): Promise<Resources> {
  const { options, logger } = context;
  const redis = createRedisConnection(options.REDIS_URL, 'worker');
  // ioredis reconnects by itself; without a listener each failed attempt is an unhandled 'error' event.
  redis.on('error', (error) => logger.warn({ err: error.message }, 'Redis connection error; reconnecting'));
  try {
    await waitUntilReady(redis, options.REDIS_URL);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  await checkEvictionPolicy(redis, logger);
  const database = createDatabase(options.DATABASE_URL, { max: options.DATABASE_POOL_SIZE });
  const queues = createQueues(redis, options.QUEUE_PREFIX);
  const tracker = createTickTracker(redis, options.QUEUE_PREFIX);
  return {
    database,
    redis,
    queues,
    tracker,
    async close() {
      await closeQueues(queues);
      redis.disconnect();
      await database.close();
    },
  };
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
    limiter: { kind: 'shared', redisUrl: options.REDIS_URL, key: `${options.QUEUE_PREFIX}:upstream:pace`, rps: options.UPSTREAM_RPS },
    priority: options.UPSTREAM_SENDER_PRIORITY,
    logger,
  });
  return createUpstreamClient({ options, logger, metrics, transport });
}
