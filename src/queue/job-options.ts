import type { JobsOptions } from 'bullmq';
import type { Options } from '../config/options.ts';

/**
 * A completed job is kept only so that its id dedupes a tick enqueued again (a second scheduler, a
 * retried producer): until its target's next tick is claimed (src/queue/pending-targets.ts), after
 * which a producer of the older tick finds it stale and adds nothing. An hour covers the default
 * crons' longest slot (NFTs, hourly) and any scheduler's lateness; the count caps a queue's memory
 * (docs/operations.md, "Redis memory"). Failed jobs are kept a week, to look at and retry in Bull Board.
 */
const COMPLETED_JOB_AGE_SECONDS = 3600;

/** Retry and retention of every job. */
export function jobOptions(options: Options): JobsOptions {
  return {
    attempts: options.JOB_ATTEMPTS,
    backoff: { type: 'exponential', delay: options.JOB_BACKOFF_MS, jitter: 0.5 },
    removeOnComplete: { age: COMPLETED_JOB_AGE_SECONDS, count: 200_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 50_000 },
  };
}
