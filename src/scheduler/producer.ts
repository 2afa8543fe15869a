import type { Context } from '../runtime/context.ts';
import type { Database } from '../db/client.ts';
import { harvestedPriceCoinTypes, listWatchedAddresses, listWatchedTokens, loadTargetWatermarks } from '../db/index.ts';
import { jobOptions } from '../queue/job-options.ts';
import type { PriceJobData } from '../queue/jobs.ts';
import type { RedisClient } from '../runtime/redis-connection.ts';
import type { Queues } from '../queue/queues.ts';
import type { TickTracker } from '../queue/tick-tracker.ts';
import { announceTickComplete } from '../queue/tick-notification.ts';
import { createPendingTargets, type TargetClaim } from '../queue/pending-targets.ts';
import { createPriceGaps } from '../queue/price-gaps.ts';
import { cronMatcher, shouldForceRefresh, slotAfter } from './cron-slots.ts';
import { maintenanceJobs, nftJobs, positionJobs, priceJobs, type PlannedJob } from './job-builders.ts';
import { supersedeJobs } from './supersede.ts';
import { missingJobIds } from '../queue/missing-jobs.ts';
import { dueTargets } from './refresh-slot.ts';
import type { DueTarget } from '../refresh/policy.ts';
import type { Dataset, QueueName } from '../datasets.ts';

/**
 * Jobs per addBulk call when a tick is enqueued: each call is one MULTI, short enough that workers
 * taking the tick's first jobs are not held up long behind it (docs/benchmarks.md); the calls go
 * out together, in order on the one connection, so a tick costs one round trip.
 */
const ENQUEUE_SLICE = 1000;
/** BullMQ priority of catch-up jobs (1 is the highest; jobs without one go before all of them). */
const CATCH_UP_PRIORITY = 10;

export interface ProducerDeps {
  context: Context;
  database: Database;
  queues: Queues;
  tracker: TickTracker;
  /** Where the pending targets and the price gaps are kept (the queues' RedisClient). */
  redis: RedisClient;
}

export type ProducedTick = Awaited<ReturnType<typeof produceTick>>;

/**
 * Enqueues one tick of one queue from the current watchlist, stalest target first; safe to run twice
 * (deterministic job ids). A target has at most one job waiting: this tick's replaces an older one
 * not started (supersede.ts), and one whose target already has a newer is superseded at once. The
 * price catch-up fills gaps and replaces nothing. `superseded`: the jobs this tick superseded (of
 * older ticks, or of this one when a newer tick came first); `outdated`: those of this one.
 */
export async function produceTick(
  deps: ProducerDeps,
  queue: QueueName,
  tick: Date,
  options: {
    at?: Date;
    /**
     * 'due' (the scheduler's slots): of the address datasets, only the targets the refresh policy
     * picks (refresh-slot.ts). 'all' (default: run-once, a test's tick): every target.
     */
    select?: 'due' | 'all';
  } = {},
) {
  const planned = await planTick(deps, queue, tick, options);
  if (queue === 'maintenance') {
    await enqueueJobs(deps, queue, planned);
    deps.context.logger.info({ queue, tick: tick.toISOString(), jobs: planned.length }, 'tick enqueued');
    const jobIds = planned.map((job) => job.opts.jobId);
    return { queue, tick, jobs: planned.length, jobIds, superseded: 0, outdated: 0 };
  }
  const catchUp = queue === 'price-catch-up';
  // The tick stream its jobs count towards: catch-up fills the prices ticks.
  const stream = catchUp ? 'prices' : queue;
  const due =
    options.select === 'due' && (queue === 'positions' || queue === 'nfts')
      ? await dueTargets(deps.database, deps.redis, deps.context.options, queue, tick)
      : undefined;
  const jobs = catchUp
    ? planned.map((job) => ({ ...job, opts: { ...job.opts, priority: CATCH_UP_PRIORITY } }))
    : due
      ? inDueOrder(planned, due)
      : stalestFirst(planned, await loadTargetWatermarks(deps.database, stream));
  const watched = new Set(planned.map((job) => job.target));
  const claim: TargetClaim = catchUp
    ? { replaced: [], stale: [] }
    : await claimTargets(deps, stream, jobs, watched, tick);
  const stale = new Set(claim.stale.map(({ job }) => job.jobId));
  const enqueued = jobs.filter((job) => !stale.has(job.opts.jobId));

  const ids = jobs.map((job) => job.opts.jobId);
  // Jobs of this tick that are gone from Redis (removed after their retention, or superseded and now
  // caught up) run again: they must not count as finished from their first run.
  const enqueuedIds = enqueued.map((job) => job.opts.jobId);
  await deps.tracker.reopen(stream, tick, await missingJobIds(deps.redis, deps.queues[queue], enqueuedIds));
  const emptyTickComplete = await deps.tracker.expect(stream, tick, ids);
  if (emptyTickComplete) await announceTickComplete(deps.database, deps.context.logger, stream, tick);
  // The jobs this tick replaces leave the queue before its own come in: never two ticks waiting.
  const { replaced, stale: outdated } = await supersedeJobs(
    { ...deps, priceGaps: createPriceGaps(deps.redis, deps.context.options.QUEUE_PREFIX) },
    stream,
    deps.queues[queue],
    claim,
  );
  await enqueueJobs(deps, queue, enqueued);
  const logged = { queue, tick: tick.toISOString(), jobs: enqueued.length };
  if (replaced > 0) {
    deps.context.logger.warn(
      { ...logged, superseded: replaced },
      'tick superseded older jobs still waiting: the watchlist needs more requests than the quota gives (chaintap plan)',
    );
  }
  if (outdated > 0) {
    // Not the quota: a tick older than one already enqueued (a late producer, or run-once --tick).
    deps.context.logger.warn(
      { ...logged, outdated },
      'jobs of this tick not run: their targets already have a job of a newer tick',
    );
  }
  if (replaced === 0 && outdated === 0) deps.context.logger.info(logged, 'tick enqueued');
  return { queue, tick, jobs: enqueued.length, jobIds: enqueuedIds, superseded: replaced + outdated, outdated };
}

/**
 * Makes this tick's jobs their targets' newest (pending-targets.ts), and releases the targets that
 * are no longer watched: their waiting jobs are superseded like the replaced ones.
 */
async function claimTargets(
  deps: ProducerDeps,
  dataset: Dataset,
  jobs: PlannedJob<unknown>[],
  watched: Set<string>,
  tick: Date,
): Promise<TargetClaim> {
  const targets = createPendingTargets(deps.redis, deps.context.options.QUEUE_PREFIX);
  const claim = await targets.claim(
    dataset,
    jobs.map((job) => ({ target: job.target, tick, jobId: job.opts.jobId })),
  );
  const released = await targets.release(dataset, watched, tick);
  return { replaced: [...claim.replaced, ...released], stale: claim.stale };
}

/** Adds planned jobs with the configured options, in addBulk calls of ENQUEUE_SLICE sent together. */
export async function enqueueJobs(
  deps: Pick<ProducerDeps, 'context' | 'queues'>,
  queue: QueueName,
  jobs: PlannedJob<unknown>[],
): Promise<void> {
  const defaults = jobOptions(deps.context.options);
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < jobs.length; i += ENQUEUE_SLICE) {
    calls.push(
      deps.queues[queue].addBulk(
        jobs
          .slice(i, i + ENQUEUE_SLICE)
          .map((job) => ({ name: job.name, data: job.data, opts: { ...defaults, ...job.opts } })),
      ),
    );
  }
  await Promise.all(calls);
}

async function planTick(
  deps: ProducerDeps,
  queue: QueueName,
  tick: Date,
  options: { at?: Date },
): Promise<PlannedJob<unknown>[]> {
  const settings = deps.context.options;
  switch (queue) {
    case 'prices': {
      const slotEnd = slotAfter(cronMatcher(settings.PRICE_CRON), tick);
      const jobs = priceJobs(await listWatchedTokens(deps.database), tick, { at: options.at, slotEnd });
      return withoutHarvestedPrices(deps, jobs, tick, slotEnd);
    }
    case 'price-catch-up': {
      const jobs = priceJobs(await listWatchedTokens(deps.database), tick, { at: options.at ?? tick });
      return withoutHarvestedPrices(deps, jobs, tick, slotAfter(cronMatcher(settings.PRICE_CRON), tick));
    }
    case 'positions': {
      const force = shouldForceRefresh(cronMatcher(settings.POSITIONS_CRON), tick, settings.FORCE_REFRESH_EVERY);
      return positionJobs(await listWatchedAddresses(deps.database), tick, force);
    }
    case 'nfts':
      return nftJobs(await listWatchedAddresses(deps.database), tick);
    case 'maintenance':
      return maintenanceJobs(tick);
  }
}

/**
 * Leaves out of a price slot's batches the coin types whose price in the slot, [tick, slotEnd), a
 * positions or NFT answer already brought; a batch left with none is not enqueued (it sends no
 * request, and the tick does not wait for it). A batch keeps its target: its job id is the one it
 * has at any other slot.
 */
async function withoutHarvestedPrices(
  deps: ProducerDeps,
  jobs: PlannedJob<PriceJobData>[],
  tick: Date,
  slotEnd: Date | undefined,
): Promise<PlannedJob<PriceJobData>[]> {
  if (!slotEnd) return jobs;
  const coinTypes = jobs.flatMap((job) => job.data.coinTypes);
  const priced = await harvestedPriceCoinTypes(deps.database, coinTypes, tick, slotEnd);
  if (priced.size === 0) return jobs;
  return jobs.flatMap((job) => {
    const left = job.data.coinTypes.filter((coinType) => !priced.has(coinType));
    return left.length === 0 ? [] : [{ ...job, data: { ...job.data, coinTypes: left } }];
  });
}

/** Pure: the jobs of the due targets, in the policy's order (most urgent first). */
function inDueOrder<T>(jobs: PlannedJob<T>[], due: DueTarget[]): PlannedJob<T>[] {
  const byTarget = new Map(jobs.map((job) => [job.target, job]));
  return due.flatMap(({ target }) => byTarget.get(target) ?? []);
}

/**
 * Pure: the jobs by when their target last succeeded, never first. A newer tick replaces the jobs
 * still waiting: so the targets left over by one tick go first in the next, and every one takes its turn.
 */
function stalestFirst<T>(jobs: PlannedJob<T>[], lastSuccess: Map<string, Date>): PlannedJob<T>[] {
  const rank = (job: PlannedJob<T>) => lastSuccess.get(job.target)?.getTime() ?? Number.NEGATIVE_INFINITY;
  return jobs
    .map((job, index) => ({ job, index, rank: rank(job) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ job }) => job);
}
