import { describe } from '../errors.ts';
import { createPriceGaps } from '../queue/price-gaps.ts';
import { lastPriceSlotKey } from '../queue/redis-keys.ts';
import { cronMatcher, floorToMinute, slotAtOrBefore, slotsBetween } from './cron-slots.ts';
import { capacityWarning, cronsOf, describeVerdict, loadCapacityPlan } from './capacity-plan.ts';
import { createClockSkewCheck } from './clock-skew.ts';
import { fillNewestPriceGap } from './price-catch-up.ts';
import { produceTick, type ProducerDeps } from './producer.ts';
import { loadRefreshState } from './refresh-slot.ts';
import { systemClock, type SchedulerClock } from './scheduler-clock.ts';
import type { QueueName } from '../datasets.ts';

export interface Scheduler {
  /** Records missed price slots to fill, then fires each queue's cron and fills price gaps. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

type CronQueue = Exclude<QueueName, 'price-catch-up'>;

/**
 * One cron per queue (UTC), each slot produced with its logical time. The last price slot is kept in
 * Redis, so that a scheduler that was down records the missed ones as price gaps; gaps are filled one
 * slot at a time. Two schedulers may run at once: they produce the same job ids.
 */
export function createScheduler(
  deps: ProducerDeps & {
    clock?: SchedulerClock;
    /** What the schedulers' clocks are compared with (clock-skew.ts): Redis's TIME unless a test gives its own. */
    referenceClock?: () => Promise<Date>;
  },
): Scheduler {
  const { options, logger } = deps.context;
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const expressions = cronsOf(options);
  const lastSlotKey = lastPriceSlotKey(options.QUEUE_PREFIX);
  const gaps = createPriceGaps(deps.redis, options.QUEUE_PREFIX);
  const clockSkew = createClockSkewCheck(deps.redis, options.QUEUE_PREFIX, logger, deps.referenceClock);
  const tasks: { stop(): Promise<void> }[] = [];
  let poll: { stop(): void } | undefined;
  let filling: Promise<void> | undefined;

  async function produce(queue: CronQueue, slot: Date): Promise<void> {
    try {
      const { superseded } = await produceTick(deps, queue, slot, { select: 'due' });
      if (superseded > 0) await warnIfOverBudget({ queue, tick: slot.toISOString(), superseded });
      if (queue === 'prices') {
        await rememberPriceSlot(slot);
        void fillGaps();
      }
    } catch (error) {
      logger.error({ queue, tick: slot.toISOString(), err: describe(error) }, 'could not enqueue tick');
    }
    // After the tick is enqueued: a diagnostic never delays the slot's prices (it reads its own
    // clock and Redis's together, whenever it runs).
    if (queue === 'prices') {
      await clockSkew
        .check(now())
        .catch((error: unknown) => logger.debug({ err: describe(error) }, "could not compare the schedulers' clocks"));
    }
  }

  /** Says in the log, with the plan's figures, when the watchlist does not fit the quota (docs/quota.md). */
  async function warnIfOverBudget(fields: Record<string, unknown> = {}): Promise<void> {
    try {
      const plan = await loadCapacityPlan(deps.database, options);
      const warning = capacityWarning(plan);
      const figures = { ...fields, neededPerHour: plan.neededPerHour, availablePerHour: plan.availablePerHour };
      if (!warning) {
        if (!('superseded' in fields))
          logger.info({ verdict: describeVerdict(plan) }, 'the watchlist fits the upstream quota');
      } else if ((await loadRefreshState(deps.database, options)).datasets.some((entry) => entry.budget.unheld)) {
        logger.warn(figures, `${warning}; refreshing by change rate cannot hold every address within its max age`);
      } else if (!('superseded' in fields)) {
        logger.info(
          figures,
          'the quota cannot refresh every address every slot: the slots refresh the addresses where changes are expected, each within its max age (chaintap plan, docs/quota.md)',
        );
      } else {
        logger.warn(figures, warning);
      }
    } catch (error) {
      logger.warn({ err: describe(error) }, 'could not work out the capacity plan');
    }
  }

  /** One fill at a time in this process; a failure is logged and tried again at the next poll. */
  function fillGaps(): Promise<void> {
    return (filling ??= fillNewestPriceGap(deps)
      .then((slot) => {
        if (slot) logger.info({ slot: slot.toISOString() }, 'filling a price gap (prices at a past slot)');
      })
      .catch((error: unknown) => logger.warn({ err: describe(error) }, 'could not fill a price gap'))
      .finally(() => {
        filling = undefined;
      }));
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

  /** The price slots missed while no scheduler ran, at most CATCHUP_MAX_SLOTS, become gaps. */
  async function recordMissedPriceSlots(): Promise<void> {
    const last = await deps.redis.get(lastSlotKey);
    if (!last || options.CATCHUP_MAX_SLOTS === 0) return;
    const matcher = cronMatcher(options.PRICE_CRON);
    const current = slotAtOrBefore(matcher, now(), 24 * 60);
    const until = current ? new Date(current.getTime() - 60_000) : now();
    const missed = slotsBetween(matcher, new Date(Number(last)), until, options.CATCHUP_MAX_SLOTS);
    if (missed.length === 0) return;
    logger.info({ slots: missed.length, from: missed[0]?.toISOString() }, 'catching up missed price slots');
    await gaps.add(missed);
    await rememberPriceSlot(missed.at(-1)!);
  }

  return {
    async start() {
      await warnIfOverBudget();
      await recordMissedPriceSlots();
      for (const queue of Object.keys(expressions) as CronQueue[]) {
        tasks.push(clock.onSlot(expressions[queue], `chaintap-${queue}`, () => produce(queue, floorToMinute(now()))));
      }
      void fillGaps();
      poll = clock.every(options.CATCHUP_POLL_MS, () => void fillGaps());
      logger.info(expressions, 'scheduler started');
    },
    async stop() {
      poll?.stop();
      await Promise.all(tasks.map((task) => task.stop()));
      tasks.length = 0;
      await filling;
    },
  };
}
