import type { Job } from 'bullmq';
import { ChaintapError } from '../errors.ts';

/**
 * A job that stalled JOB_MAX_STALLS times: each of those attempts lost its process (killed, out of
 * memory) or stopped renewing its lock while it ran. Not run again, so that a job that takes its
 * process down does not go from process to process for ever; not retryable.
 */
export class StalledTooOftenError extends ChaintapError {
  override readonly retryable = false;
  constructor(stalls: number, limit: number) {
    super(
      `the job stalled ${stalls} time${stalls === 1 ? '' : 's'} (JOB_MAX_STALLS ${limit}): the process running it died or stopped renewing ` +
        `its lock each time; failed without running it again`,
    );
  }
}

/** Throws StalledTooOftenError when the job has stalled `limit` times (BullMQ's count, kept in Redis). */
export function assertStallLimit(job: Job, limit: number): void {
  if (job.stalledCounter >= limit) throw new StalledTooOftenError(job.stalledCounter, limit);
}
