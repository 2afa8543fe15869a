import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * Redis connections as BullMQ requires them. Workers (and anything that blocks) need
 * maxRetriesPerRequest: null so that a Redis restart pauses them instead of failing jobs;
 * producers and CLI commands fail fast so that a person sees the problem.
 */
export function createRedisConnection(url: string, role: 'worker' | 'producer', extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    enableOfflineQueue: role === 'worker',
    connectTimeout: 10_000,
    retryStrategy: (times) => Math.min(200 * times, 5_000),
    lazyConnect: false,
    ...extra,
  });
}

/** BullMQ loses jobs when Redis evicts keys: warn loudly when maxmemory-policy is not noeviction. */
export async function checkEvictionPolicy(redis: Redis, logger: Logger): Promise<string | undefined> {
  try {
    const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
    const policy = reply[1];
    if (policy && policy !== 'noeviction') {
      logger.warn(
        { policy },
        `Redis maxmemory-policy is "${policy}": BullMQ needs "noeviction" or jobs can be lost (redis-cli config set maxmemory-policy noeviction)`,
      );
    }
    return policy;
  } catch (error) {
    // Managed Redis services often forbid CONFIG; the check is advisory.
    logger.debug({ err: error }, 'could not read Redis maxmemory-policy');
    return undefined;
  }
}
