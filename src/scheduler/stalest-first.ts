import type { PlannedJob } from './job-builders.ts';

/**
 * Pure: the jobs ordered by when their target last succeeded, never first, then oldest first (ties
 * keep their order). Workers take a queue's jobs in the order they were added, and a newer tick
 * replaces the jobs still waiting: in this order the targets left over by one tick go first in the
 * next, so under a quota too small for the watchlist every target takes its turn.
 */
export function stalestFirst<T>(jobs: PlannedJob<T>[], lastSuccess: Map<string, Date>): PlannedJob<T>[] {
  const rank = (job: PlannedJob<T>) => lastSuccess.get(job.target)?.getTime() ?? Number.NEGATIVE_INFINITY;
  return jobs
    .map((job, index) => ({ job, index, rank: rank(job) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ job }) => job);
}
