import type { Redis } from 'ioredis';
import type { Context } from '../context.js';
import { createDatabase, type Database } from '../db/client.js';
import { closeQueues, createQueues, type Queues } from '../queue/queues.js';
import { checkEvictionPolicy, createRedisConnection } from '../queue/redis-connection.js';
import { createTickTracker, type TickTracker } from '../queue/tick-tracker.js';
import { createUpstreamClient, type UpstreamClient } from '../upstream/client.js';
import { createSharedRateLimiter } from '../upstream/rate-limiter.js';

/** The connections a command works with, opened once and closed together. */
export interface Resources {
  database: Database;
  redis: Redis;
  queues: Queues;
  tracker: TickTracker;
  close(): Promise<void>;
}

export async function openResources(context: Context): Promise<Resources> {
  const { options, logger } = context;
  const database = createDatabase(options.DATABASE_URL, { max: options.DATABASE_POOL_SIZE });
  const redis = createRedisConnection(options.REDIS_URL, 'worker');
  await checkEvictionPolicy(redis, logger);
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

/** The upstream client, its request budget shared through Redis with every other process. */
export function openUpstreamClient(context: Context, redis: Redis): UpstreamClient {
  const { options, logger, metrics } = context;
  const rateLimiter = createSharedRateLimiter({
    redis,
    key: `${options.QUEUE_PREFIX}:upstream:pace`,
    rps: options.UPSTREAM_RPS,
    metrics,
  });
  return createUpstreamClient({ options, logger, metrics, rateLimiter });
}
