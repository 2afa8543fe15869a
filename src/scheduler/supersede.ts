import type { Queue } from 'bullmq';
import { recordSupersededRuns, type SupersededRun } from '../db/index.ts';
import type { Dataset } from '../datasets.ts';
import type { Supersession } from '../queue/pending-targets.ts';
import type { PriceGaps } from '../queue/price-gaps.ts';
import { announceTickComplete } from '../queue/tick-notification.ts';
import type { ProducerDeps } from './producer.ts';

/** Job states in which a job has not started: it can be replaced. */
const NOT_STARTED = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);
const PARALLEL = 200;

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

/** The replaced jobs that had not started and are now removed from the queue. */
function removeNotStarted(queue: Queue, replaced: Supersession[]): Promise<Supersession[]> {
  return filterInSlices(replaced, PARALLEL, async ({ job }) => {
    const state = await queue.getJobState(job.jobId);
    // remove() answers 0 for a job a worker has locked meanwhile: it runs, and is not superseded.
    return NOT_STARTED.has(state) && (await queue.remove(job.jobId)) === 1;
  });
}

/** The items `keep` answers true for, asked `slice` at a time (a slice's Redis calls go together). */
export async function filterInSlices<T>(items: T[], slice: number, keep: (item: T) => Promise<boolean>): Promise<T[]> {
  const kept: T[] = [];
  for (let i = 0; i < items.length; i += slice) {
    const part = items.slice(i, i + slice);
    const answers = await Promise.all(part.map(keep));
    kept.push(...part.filter((_, index) => answers[index]));
  }
  return kept;
}
