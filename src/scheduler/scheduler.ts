import cron, { type ScheduledTask } from 'node-cron';
import type { Redis } from 'ioredis';
import { cronMatcher, floorToMinute, slotAtOrBefore, slotsBetween } from './cron-slots.js';
import { produceTick, type ProducerDeps } from './producer.js';
import type { QueueName } from '../datasets.js';

export interface Scheduler {
  /** Catches up missed price slots, then fires each queue's cron. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * node-cron in UTC, one expression per queue. Each fired slot is produced with its logical time;
 * the last produced price slot is kept in Redis so that a scheduler that was down enqueues the
 * missed slots (prices at those past times) when it comes back. Two schedulers may run at once:
 * they produce the same job ids.
 */
export function createScheduler(deps: ProducerDeps & { redis: Redis; now?: () => Date }): Scheduler {
  const { options, logger } = deps.context;
  const now = deps.now ?? (() => new Date());
  const expressions: Record<QueueName, string> = {
    prices: options.PRICE_CRON,
    positions: options.POSITIONS_CRON,
    nfts: options.NFT_CRON,
    maintenance: options.MAINTENANCE_CRON,
  };
  const lastSlotKey = `${options.QUEUE_PREFIX}:scheduler:last-price-slot`;
  const tasks: ScheduledTask[] = [];

  async function produce(queue: QueueName, slot: Date, at?: Date): Promise<void> {
    try {
      await produceTick(deps, queue, slot, { at });
      if (queue === 'prices') await rememberPriceSlot(slot);
    } catch (error) {
      logger.error({ queue, tick: slot.toISOString(), err: (error as Error).message }, 'could not enqueue tick');
    }
  }

  async function rememberPriceSlot(slot: Date): Promise<void> {
    // Only ever forward, whichever scheduler writes last.
    await deps.redis.eval(
      "local c = tonumber(redis.call('GET', KEYS[1]) or '0') if tonumber(ARGV[1]) > c then redis.call('SET', KEYS[1], ARGV[1]) end",
      1,
      lastSlotKey,
      slot.getTime(),
    );
  }

  async function catchUpPrices(): Promise<void> {
    const last = await deps.redis.get(lastSlotKey);
    if (!last || options.CATCHUP_MAX_SLOTS === 0) return;
    const matcher = cronMatcher(options.PRICE_CRON);
    const current = slotAtOrBefore(matcher, now(), 24 * 60);
    const until = current ? new Date(current.getTime() - 60_000) : now();
    const missed = slotsBetween(matcher, new Date(Number(last)), until, options.CATCHUP_MAX_SLOTS);
    if (missed.length)
      logger.info({ slots: missed.length, from: missed[0]?.toISOString() }, 'catching up missed price slots');
    for (const slot of missed) await produce('prices', slot, slot);
  }

  return {
    async start() {
      await catchUpPrices();
      for (const queue of Object.keys(expressions) as QueueName[]) {
        const task = cron.schedule(expressions[queue], async () => produce(queue, floorToMinute(now())), {
          timezone: 'Etc/UTC',
          name: `chaintap-${queue}`,
          noOverlap: true,
        });
        tasks.push(task);
      }
      logger.info(expressions, 'scheduler started');
    },
    async stop() {
      await Promise.all(tasks.map((task) => task.destroy()));
      tasks.length = 0;
    },
  };
}
