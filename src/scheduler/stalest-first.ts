import type { PlannedJob } from './job-builders.ts';

/**
 * Pure: the jobs by when their target last succeeded, never first. A newer tick replaces the jobs
 * still waiting: so the targets left over by one tick go first in the next, and every one takes its turn.
 */
export function stalestFirst<T>(jobs: PlannedJob<T>[], lastSuccess: Map<string, Date>): PlannedJob<T>[] {
  const rank = (job: PlannedJob<T>) => lastSuccess.get(job.target)?.getTime() ?? Number.NEGATIVE_INFINITY;
  return jobs
    .map((job, index) => ({ job, index, rank: rank(job) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ job }) => job);
}
