import type { JobsOptions } from 'bullmq';
import type { Options } from '../config/options.ts';

/**
 * Retry and retention policy of every job. Completed jobs are kept a day so that their ids keep
 * deduplicating the same tick (an id only dedupes while its job exists); failed ones a week so
 * that people can look at them in Bull Board.
 */
export function jobOptions(options: Options): JobsOptions {
  return {
    attempts: options.JOB_ATTEMPTS,
    backoff: { type: 'exponential', delay: options.JOB_BACKOFF_MS, jitter: 0.5 },
    removeOnComplete: { age: 24 * 3600, count: 200_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 50_000 },
  };
}
