import { QUEUE_NAMES } from '../datasets.ts';
import type { Logger } from '../runtime/logger.ts';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { keysPattern } from './redis-keys.ts';

/**
 * Before hash tags (src/queue/redis-keys.ts) a queue's keys were `<prefix>:<queue>:*`. Jobs left there are
 * invisible to this version: say so at start, with how many wait. Returns the queues found there.
 */
export async function checkKeyLayout(redis: RedisClient, prefix: string, logger: Logger): Promise<string[]> {
  const found: { queue: string; waiting: number }[] = [];
  for (const queue of QUEUE_NAMES) {
    // BullMQ keeps a meta key per queue that was ever used: `chaintap:prices:meta` then.
    const old = `${prefix}:${queue}`;
    if ((await redis.exists(`${old}:meta`)) === 0) continue;
    const [wait, prioritized, delayed, active] = await Promise.all([
      redis.llen(`${old}:wait`),
      redis.zcard(`${old}:prioritized`),
      redis.zcard(`${old}:delayed`),
      redis.llen(`${old}:active`),
    ]);
    found.push({ queue, waiting: wait + prioritized + delayed + active });
  }
  if (found.length > 0) {
    const waiting = found.reduce((sum, { waiting }) => sum + waiting, 0);
    logger.warn(
      { queues: found, keys: `${prefix}:<queue>:*`, now: keysPattern(prefix) },
      `Redis holds queues in the key layout of chaintap before hash tags: their ${waiting} unfinished jobs are not run by this version. ` +
        'Drain them with the previous version, or let the scheduler enqueue their ticks again and delete the old keys (docs/operations.md, "Upgrades and migrations")',
    );
  }
  return found.map(({ queue }) => queue);
}
