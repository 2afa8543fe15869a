import type { JobsOptions } from 'bullmq';
import type { Options } from '../config/options.ts';

/**
 * Retry and retention of every job: completed ones kept a day (an id dedupes a tick only while its
 * job exists), failed ones a week (to look at in Bull Board).
 */
export function jobOptions(options: Options): JobsOptions {
  return {
    attempts: options.JOB_ATTEMPTS,
    backoff: { type: 'exponential', delay: options.JOB_BACKOFF_MS, jitter: 0.5 },
    removeOnComplete: { age: 24 * 3600, count: 200_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 50_000 },
  };
}
