import type { Context } from '../runtime/context.js';
import type { Database } from '../db/client.js';
import { listWatchedAddresses, listWatchedTokens } from '../db/index.js';
import { jobOptions } from '../queue/job-options.js';
import type { Queue } from 'bullmq';
import type { Queues } from '../queue/queues.js';
import type { TickTracker } from '../queue/tick-tracker.js';
import { announceTickComplete } from '../queue/tick-notification.js';
import { cronMatcher, shouldForceRefresh } from './cron-slots.js';
import { maintenanceJobs, nftJobs, positionJobs, priceJobs, type PlannedJob } from './job-builders.js';
import type { QueueName } from '../datasets.js';

/** Jobs per addBulk call when a tick is enqueued. */
const ENQUEUE_SLICE = 200;

export interface ProducerDeps {
  context: Context;
  database: Database;
  queues: Queues;
  tracker: TickTracker;
}

export interface ProducedTick {
  queue: QueueName;
  tick: Date;
  jobs: number;
  jobIds: string[];
}

/**
 * Enqueues one tick of one queue from the current watchlist. Safe to run twice for the same tick
 * (deterministic job ids); a tick with no work is announced complete at once.
 */
export async function produceTick(
  deps: ProducerDeps,
  queue: QueueName,
  tick: Date,
  options: { at?: Date } = {},
): Promise<ProducedTick> {
  const jobs = await planTick(deps, queue, tick, options);
  if (queue !== 'maintenance') {
    // Jobs of this tick that are gone from Redis (removed after their retention) run again: they
    // must not count as finished from their first run.
    const ids = jobs.map((job) => job.opts.jobId);
    await deps.tracker.reopen(queue, tick, await missingJobIds(deps.queues[queue], ids));
    const emptyTickComplete = await deps.tracker.expect(queue, tick, ids);
    if (emptyTickComplete) await announceTickComplete(deps.database, deps.context.logger, queue, tick);
  }
  await enqueueJobs(deps, queue, jobs);
  deps.context.logger.info({ queue, tick: tick.toISOString(), jobs: jobs.length }, 'tick enqueued');
  return { queue, tick, jobs: jobs.length, jobIds: jobs.map((job) => job.opts.jobId) };
}

/**
 * Adds planned jobs with the configured job options, in addBulk slices of ENQUEUE_SLICE: each a
 * short Redis transaction, so that workers already taking the tick's first jobs are not held up
 * behind one long MULTI (slices of 1,000 left the upstream short of requests for the first seconds
 * of a tick; see docs/benchmarks.md).
 */
export async function enqueueJobs(
  deps: Pick<ProducerDeps, 'context' | 'queues'>,
  queue: QueueName,
  jobs: PlannedJob<unknown>[],
): Promise<void> {
  const defaults = jobOptions(deps.context.options);
  for (let i = 0; i < jobs.length; i += ENQUEUE_SLICE) {
    await deps.queues[queue].addBulk(
      jobs
        .slice(i, i + ENQUEUE_SLICE)
        .map((job) => ({ name: job.name, data: job.data, opts: { ...defaults, ...job.opts } })),
    );
  }
}

/** The ids among `ids` that have no job in the queue (any state). */
export async function missingJobIds(queue: Queue, ids: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i += 1000) {
    const slice = ids.slice(i, i + 1000);
    const states = await Promise.all(slice.map((id) => queue.getJobState(id)));
    slice.forEach((id, index) => states[index] === 'unknown' && missing.push(id));
  }
  return missing;
}

async function planTick(
  deps: ProducerDeps,
  queue: QueueName,
  tick: Date,
  options: { at?: Date },
): Promise<PlannedJob<unknown>[]> {
  const settings = deps.context.options;
  switch (queue) {
    case 'prices':
      return priceJobs(await listWatchedTokens(deps.database), tick, { at: options.at });
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
