import type { Job } from 'bullmq';
import { ChaintapError } from '../errors.ts';

/** This worker no longer holds the job's lock (not renewed within JOB_LOCK_MS): what it did is abandoned. */
export class JobLockLostError extends ChaintapError {
  constructor(jobId: string) {
    super(`job ${jobId}: its lock was lost (held longer than JOB_LOCK_MS without renewal); another worker runs it`);
  }
}

/**
 * Throws JobLockLostError unless this worker still holds the job's lock, renewing it. Called just
 * before a job's transaction commits, so that a worker that lost the job never writes over another.
 */
export async function assertJobLock(job: Job, lockMs: number): Promise<void> {
  const held = job.token !== undefined && Number(await job.extendLock(job.token, lockMs)) === 1;
  if (!held) throw new JobLockLostError(job.id ?? 'unknown');
}
