import type { Queue } from 'bullmq';
import { recordSupersededRuns, type SupersededRun } from '../db/index.ts';
import type { Dataset } from '../datasets.ts';
import type { Supersession } from '../queue/pending-targets.ts';
import type { PriceGaps } from '../queue/price-gaps.ts';
import { announceTickComplete } from '../queue/tick-notification.ts';
import type { ProducerDeps } from './producer.ts';

/** Job states in which a job has not started: it can be replaced. */
const NOT_STARTED = ['waiting', 'prioritized', 'delayed', 'waiting-children'] as const;

/**
 * Supersedes the jobs a newer tick replaces: each still waiting leaves its queue (one that just
 * started runs on), and each removed or never enqueued (`stale`) is finished in its tick, recorded in
 * ingestion_runs and, for prices, its slot kept as a gap. Returns how many were superseded of each:
 * `replaced`, older jobs this tick replaced; `stale`, this tick's own, whose targets have a newer job.
 */
export async function supersedeJobs(
  deps: ProducerDeps & { priceGaps: PriceGaps },
  dataset: Dataset,
  queue: Queue,
  claim: { replaced: Supersession[]; stale: Supersession[] },
): Promise<{ replaced: number; stale: number }> {
  const removed = await removeNotStarted(queue, claim.replaced);
  return {
    replaced: await finishSuperseded(deps, dataset, removed),
    stale: await finishSuperseded(deps, dataset, claim.stale),
  };
}

/** Finishes superseded jobs in their ticks (announcing a tick they complete) and records them; returns how many. */
async function finishSuperseded(
  deps: ProducerDeps & { priceGaps: PriceGaps },
  dataset: Dataset,
  candidates: Supersession[],
): Promise<number> {
  let count = 0;
  for (const [tickMs, supersessions] of Map.groupBy(candidates, ({ job }) => job.tick.getTime())) {
    const tick = new Date(tickMs);
    const ids = supersessions.map(({ job }) => job.jobId);
    const { superseded, completed } = await deps.tracker.supersede(dataset, tick, ids);
    if (superseded.length === 0) continue;
    const done = new Set(superseded);
    const runs: SupersededRun[] = supersessions
      .filter(({ job }) => done.has(job.jobId))
      .map(({ job, by }) => ({ jobId: job.jobId, dataset, target: job.target, tick, supersededBy: by }));
    await recordSupersededRuns(deps.database, runs);
    if (dataset === 'prices') await deps.priceGaps.add([tick]);
    deps.context.metrics.jobs.inc({ queue: dataset, outcome: 'superseded' }, superseded.length);
    count += superseded.length;
    if (completed) {
      const { superseded: total } = await deps.tracker.progress(dataset, tick);
      await announceTickComplete(deps.database, deps.context.logger, dataset, tick, { superseded: total });
    }
  }
  return count;
}

/**
 * The replaced jobs that had not started and are now removed from the queue. Which have not started
 * is one question for the whole queue (its not-started ids: at most about one tick's jobs, since a tick
 * supersedes the older ones); the removals go out together, one per job (BullMQ removes one id a call).
 */
async function removeNotStarted(queue: Queue, replaced: Supersession[]): Promise<Supersession[]> {
  if (replaced.length === 0) return [];
  const notStarted = new Set(await queue.getRanges([...NOT_STARTED], 0, -1));
  const candidates = replaced.filter(({ job }) => notStarted.has(job.jobId));
  // remove() answers 0 for a job a worker has locked meanwhile: it runs, and is not superseded.
  const removed = await Promise.all(candidates.map(({ job }) => queue.remove(job.jobId)));
  return candidates.filter((_, index) => removed[index] === 1);
}
