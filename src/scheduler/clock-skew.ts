import { randomUUID } from 'node:crypto';
import { schedulerClocksKey } from '../queue/redis-keys.ts';
import type { Logger } from '../runtime/logger.ts';
import type { RedisClient } from '../runtime/redis-connection.ts';

/**
 * Each of the two schedulers enqueues a slot by its own clock: one ahead enqueues every slot early
 * (a current price then is the previous minute's, and the catch-up asks for the slot again at its
 * own time: a request more per price job). So at each price tick each records how far its
 * clock is from Redis's TIME, reads the others', and warns when two differ by more than this.
 */
const MAX_SCHEDULER_SKEW_MS = 5_000;
/** A scheduler not heard of for this long has stopped: its clock no longer counts. */
const HEARD_WITHIN_MS = 10 * 60_000;
/** How often a scheduler repeats the warning while the clocks differ. */
const WARN_EVERY_MS = 60 * 60_000;

/** What a scheduler records: its clock minus the reference's, and when (reference time), in ms. */
export interface ClockReading {
  offsetMs: number;
  atMs: number;
}

/** How far the furthest recent other clock is from this one (positive: this one is ahead). Pure. */
export function largestSkew(own: ClockReading, others: ClockReading[]): { skewMs: number } | undefined {
  let largest: { skewMs: number } | undefined;
  for (const other of others) {
    if (own.atMs - other.atMs > HEARD_WITHIN_MS) continue;
    const skewMs = own.offsetMs - other.offsetMs;
    if (!largest || Math.abs(skewMs) > Math.abs(largest.skewMs)) largest = { skewMs };
  }
  return largest;
}

/** `reference`: the clock every scheduler compares its own with (default Redis's TIME; a test's world clock). */
export function createClockSkewCheck(
  redis: RedisClient,
  prefix: string,
  logger: Logger,
  reference = async () => {
    const [seconds, micros] = await redis.time();
    return new Date(Number(seconds) * 1000 + Math.floor(Number(micros) / 1000));
  },
): { check(now: Date): Promise<void> } {
  const id = randomUUID();
  const key = schedulerClocksKey(prefix);
  let warnedAt = Number.NEGATIVE_INFINITY;
  return {
    /** Records this scheduler's clock reading `now` and warns when another's differs too much. */
    async check(now) {
      const referenceMs = (await reference()).getTime();
      const own: ClockReading = { offsetMs: now.getTime() - referenceMs, atMs: referenceMs };
      await redis.hset(key, id, JSON.stringify(own));
      const others = Object.entries(await redis.hgetall(key))
        .filter(([otherId]) => otherId !== id)
        .map(([otherId, text]) => ({ otherId, ...(JSON.parse(text) as ClockReading) }));
      const stale = others.filter((other) => own.atMs - other.atMs > HEARD_WITHIN_MS);
      if (stale.length > 0) await redis.hdel(key, ...stale.map((other) => other.otherId));
      // largestSkew leaves the stale readings out.
      const skew = largestSkew(own, others);
      if (!skew || Math.abs(skew.skewMs) <= MAX_SCHEDULER_SKEW_MS || own.atMs - warnedAt < WARN_EVERY_MS) return;
      warnedAt = own.atMs;
      const apart = (Math.abs(skew.skewMs) / 1000).toFixed(1);
      logger.warn(
        { skewMs: Math.round(skew.skewMs), maxSkewMs: MAX_SCHEDULER_SKEW_MS },
        `this scheduler's clock is ${apart} s ${skew.skewMs > 0 ? 'ahead of' : 'behind'} another scheduler's: the one ahead enqueues every tick that much early (current prices then are the previous minute's); synchronise their clocks (NTP)`,
      );
    },
  };
}
