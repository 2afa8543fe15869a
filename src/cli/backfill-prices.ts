import { listWatchedTokens, storedPriceTimes } from '../db/index.js';
import { InvalidInputError } from '../errors.js';
import { normalizeCoinType } from '../chain/coin-type.js';
import { createWorkerPool } from '../worker/workers.js';
import { backfillTimes, planBackfill } from '../scheduler/backfill-plan.js';
import { enqueueJobs } from '../scheduler/producer.js';
import { withShutdown } from '../runtime/shutdown.js';
import { waitForTicks, type CycleDeps } from './run-cycle.js';

export interface BackfillRequest {
  from: Date;
  to: Date;
  intervalMs: number;
  /** Default: the token watchlist. */
  coinTypes?: string[];
  onProgress?: (finished: number, expected: number) => void;
}

export interface BackfillOutcome {
  steps: number;
  coinTypes: number;
  jobs: number;
  skipped: number;
  complete: boolean;
}

/**
 * Prices at every step of a time range through the upstream's `timestamp` parameter. Times already
 * stored are skipped and job ids are deterministic, so an interrupted backfill, run again, resumes
 * where it stopped (jobs still queued from the first run are the same jobs).
 */
export async function runBackfill(deps: CycleDeps, request: BackfillRequest): Promise<BackfillOutcome> {
  const coinTypes = request.coinTypes
    ? [...new Set(request.coinTypes.map((coin) => normalizeCoinType(coin)))]
    : await listWatchedTokens(deps.database);
  if (coinTypes.length === 0)
    throw new InvalidInputError('no tokens to backfill: pass --tokens or add tokens to the watchlist');
  const times = backfillTimes(request.from, request.to, request.intervalMs);
  const last = times[times.length - 1]!;
  const stored = await storedPriceTimes(
    deps.database,
    coinTypes,
    request.from,
    new Date(last.getTime() + request.intervalMs),
  );
  const plan = planBackfill(coinTypes, times, request.intervalMs, stored);
  deps.context.logger.info(
    { steps: times.length, coinTypes: coinTypes.length, jobs: plan.jobs.length, skipped: plan.skipped },
    'backfill planned',
  );

  return withShutdown(deps.context.logger, async (shutdown) => {
    const pool = createWorkerPool({ ...deps, queueNames: ['prices'] });
    shutdown.add('workers', () => pool.close());
    for (const [tick, ids] of plan.byTick) await deps.tracker.expect('backfill', new Date(tick), ids);
    await enqueueJobs(deps, 'prices', plan.jobs);
    await retryFailedFromEarlierRuns(deps, new Set(plan.jobs.map((job) => job.opts.jobId)));
    const complete = await waitForTicks(deps, {
      streams: [...plan.byTick.keys()].map((tick) => ({ stream: 'backfill' as const, tick: new Date(tick) })),
      queues: ['prices'],
      onProgress: request.onProgress,
    });
    return {
      steps: times.length,
      coinTypes: coinTypes.length,
      jobs: plan.jobs.length,
      skipped: plan.skipped,
      complete,
    };
  });
}

/** A job that failed for good in an earlier run keeps its id (and would block re-adding): retry it. */
async function retryFailedFromEarlierRuns(deps: CycleDeps, ids: Set<string>): Promise<void> {
  if (ids.size === 0) return;
  const failed = await deps.queues.prices.getJobs(['failed'], 0, -1);
  for (const job of failed) {
    if (!job.id || !ids.has(job.id)) continue;
    await deps.tracker.reopen('backfill', new Date(job.data.tick), [job.id]);
    await job.retry('failed');
  }
}
