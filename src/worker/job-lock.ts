import type { Job } from 'bullmq';
import { ChaintapError } from '../errors.ts';

/**
 * This worker no longer holds the job's lock: it stopped renewing it for longer than JOB_LOCK_MS (a
 * process stopped or starved), and another worker may have taken the job over. Whatever this one
 * was doing for the job is abandoned: its request, its write and its run record.
 */
export class JobLockLostError extends ChaintapError {
  constructor(jobId: string) {
    super(`job ${jobId}: its lock was lost (held longer than JOB_LOCK_MS without renewal); another worker runs it`);
  }
}

/**
 * Throws JobLockLostError unless this worker still holds the job's lock, renewing it for another
 * `lockMs` when it does. Called inside a job's transaction, just before it commits, so that a worker
 * that lost the job never writes over the one that took it.
 */
export async function assertJobLock(job: Job, lockMs: number): Promise<void> {
  const held = job.token !== undefined && Number(await job.extendLock(job.token, lockMs)) === 1;
  if (!held) throw new JobLockLostError(job.id ?? 'unknown');
}
