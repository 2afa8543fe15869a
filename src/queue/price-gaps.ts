import type { RedisClient } from '../runtime/redis-connection.ts';
import { priceGapsKey } from './redis-keys.ts';

/**
 * Price slots whose current prices were never fetched: superseded by a newer slot under overload, or
 * missed while no scheduler ran. They are filled later through the upstream's `timestamp` parameter
 * (src/scheduler/price-catch-up.ts). A Redis sorted set of slot times, shared by every scheduler; at
 * most MAX_GAPS are kept (the oldest are dropped first, and said so).
 */
export const MAX_GAPS = 100_000;

export type PriceGaps = ReturnType<typeof createPriceGaps>;

export function createPriceGaps(redis: RedisClient, prefix: string) {
  const key = priceGapsKey(prefix);
  return {
    /** Records slots; returns how many old slots were dropped to stay within MAX_GAPS. */
    async add(slots: Date[]): Promise<number> {
      if (slots.length === 0) return 0;
      const members = slots.flatMap((slot) => [slot.getTime(), String(slot.getTime())]);
      const [, [, dropped]] = (await redis
        .multi()
        .zadd(key, ...members)
        .zremrangebyrank(key, 0, -MAX_GAPS - 1)
        .exec()) as [[Error | null, unknown], [Error | null, number]];
      return dropped;
    },
    /** The newest recorded slot, or undefined. */
    async newest(): Promise<Date | undefined> {
      const [member] = await redis.zrevrange(key, 0, 0);
      return member === undefined ? undefined : new Date(Number(member));
    },
    async remove(slot: Date): Promise<void> {
      await redis.zrem(key, String(slot.getTime()));
    },
    count: () => redis.zcard(key),
  };
}
