import type { RedisClient } from '../runtime/redis-connection.ts';
import { priceGapsKey } from './redis-keys.ts';

/**
 * Price slots never fetched (superseded under overload, or no scheduler ran), filled later at their
 * own time (src/scheduler/price-catch-up.ts). A sorted set shared by the schedulers; the oldest are
 * dropped past MAX_GAPS.
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
