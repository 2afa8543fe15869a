import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Context } from '../runtime/context.ts';
import type { Database } from '../db/client.ts';
import { whenReachable } from '../db/when-reachable.ts';
import {
  commitJob,
  quarantinePayload,
  recordJobFailure,
  type Fence,
  type RawRecord,
  type RunRecord,
  type Tx,
} from '../db/index.ts';
import type { JobResult } from '../queue/jobs.ts';
import type { TickTracker } from '../queue/tick-tracker.ts';
import type { PriceGaps } from '../queue/price-gaps.ts';
import { describe } from '../errors.ts';
import {
  InvalidPayloadError,
  OversizedPayloadError,
  TooManyElementsError,
  UpstreamError,
  type RateLimitedError,
} from '../upstream/errors.ts';
import type { UpstreamResponse } from '../upstream/client.ts';
import { announceTickComplete } from '../queue/tick-notification.ts';
import type { TickStream } from '../datasets.ts';
import type { ElementOutcome, QuarantinedElement } from '../db/schema/rows.ts';
import { recordSchemaDrifts } from '../db/stores/schema-drifts.ts';
import { jobOutcome } from './job-outcome.ts';
import { assertJobLock, JobLockLostError } from './job-lock.ts';
import { assertStallLimit } from './stall-limit.ts';

/** What a processor needs besides its own upstream call. */
export interface IngestionDeps {
  context: Context;
  database: Database;
  tracker: TickTracker;
  /** Price slots to fill later (a current price fetched after its slot ended). */
  priceGaps: PriceGaps;
}

export interface IngestionSpec<T, Rows> {
  dataset: RunRecord['dataset'];
  /** Which tick's completion this job counts towards; absent for housekeeping jobs. */
  trackedStream?: TickStream;
  target: string;
  tick: Date;
  /** Endpoint (path and query, never the key) for raw_responses when the call itself failed. */
  endpoint: string;
  fetch(signal: AbortSignal): Promise<UpstreamResponse<T>>;
  /** Pure. UnreadablePayloadError quarantines the payload; any other throw is a bug and fails the job. */
  normalize(data: T): Rows;
  /** For answers read element by element: how many elements, which were quarantined, which fields drifted. */
  outcome?(rows: Rows): ElementOutcome;
  write(tx: Tx, rows: Rows): Promise<Record<string, number>>;
}

/** One attempt of one job, as every step of it records it. */
type Attempt<T, Rows> = { deps: IngestionDeps; job: Job; spec: IngestionSpec<T, Rows>; run: RunRecord; fence: Fence };

/**
 * One ingestion job: fetch, normalize, commit rows + run record + raw body in one transaction. An
 * unreadable payload is quarantined with its body (an unreadable element alone, unless all are); a
 * failure is written to ingestion_runs before BullMQ retries it, as job-outcome.ts decides. Every
 * write commits only while this worker holds the job's lock (job-lock.ts).
 */
export async function runIngestionJob<T, Rows>(
  deps: IngestionDeps,
  job: Job,
  signal: AbortSignal,
  spec: IngestionSpec<T, Rows>,
): Promise<JobResult> {
  const { metrics } = deps.context;
  const run: RunRecord = {
    jobId: job.id ?? 'unknown',
    dataset: spec.dataset,
    target: spec.target,
    tick: spec.tick,
    attempts: job.attemptsMade + 1,
    startedAt: new Date(),
  };
  const attempt = { deps, job, spec, run, fence: () => assertJobLock(job, deps.context.options.JOB_LOCK_MS) };
  const stopTimer = metrics.jobDuration.startTimer({ queue: job.queueName });
  // The answer's share of the process's answer budget, given back once the job is done with it.
  let response: UpstreamResponse<T> | undefined;
  let carried: UpstreamError | undefined;
  try {
    // Before anything else: a job that took its process down too often is not run again.
    assertStallLimit(job, deps.context.options.JOB_MAX_STALLS);
    let rows: Rows;
    try {
      response = await spec.fetch(signal);
      rows = spec.normalize(response.data);
    } catch (error) {
      if (error instanceof UpstreamError) carried = error;
      if (jobOutcome(error) !== 'quarantine') {
        // Only UnreadablePayloadError may leave a normalizer: anything else is said loudly.
        if (response) {
          deps.context.logger.error(
            { err: error, jobId: run.jobId, dataset: spec.dataset, target: spec.target, endpoint: response.url },
            'the normalizer failed on a validated payload: a bug in chaintap, not a bad payload',
          );
        }
        throw error;
      }
      // The client's error carries the body that failed the schema or carries too many values, or the
      // first bytes of one too large to read; a normalizer's, the answer.
      if (
        error instanceof InvalidPayloadError ||
        error instanceof OversizedPayloadError ||
        error instanceof TooManyElementsError
      )
        return await quarantine(
          attempt,
          { url: error.url, status: error.status ?? 200, body: error.body },
          error.message,
        );
      if (!response) throw error;
      return await quarantine(attempt, response, `cannot normalize: ${(error as Error).message}`);
    }
    const outcome = spec.outcome?.(rows);
    const quarantined = outcome?.quarantined ?? [];
    if (outcome && quarantined.length > 0 && quarantined.length === outcome.elements) {
      const more = quarantined.length > 1 ? ` (and ${quarantined.length - 1} more elements)` : '';
      const reason = `cannot normalize: ${quarantined[0]!.reason}${more}`;
      return await quarantine(attempt, response, reason, quarantined);
    }
    const { rowsWritten, byTable } = await commitJob(deps.database, {
      run,
      raw: [rawRecord(spec, response.url, response.status, response.body, response.receivedAt)],
      httpStatus: response.status,
      write: (tx) => spec.write(tx, rows),
      elements: outcome && { stored: outcome.elements - quarantined.length, quarantined },
      fence: attempt.fence,
    });
    for (const [table, count] of Object.entries(byTable)) metrics.rowsWritten.inc({ table }, count);
    if (outcome) await recordElementOutcome(attempt, outcome);
    metrics.jobs.inc({ queue: job.queueName, outcome: 'completed' });
    await finishTarget(attempt);
    return { outcome: 'succeeded', rowsWritten };
  } catch (error) {
    // The lock-lost abort of this job's signal (workers.ts) wins over whatever the abort caused.
    throw await handleFailure(attempt, signal.reason instanceof JobLockLostError ? signal.reason : error);
  } finally {
    response?.release();
    carried?.release();
    stopTimer();
  }
}

/**
 * Drifts in /metrics and schema_drifts, elements quarantined alone in /metrics and the log. The job's
 * rows are committed by now: a drift that cannot be recorded is logged, and the job still succeeds.
 */
async function recordElementOutcome<T, Rows>(
  { deps, spec, run }: Attempt<T, Rows>,
  { drifts, quarantined }: ElementOutcome,
): Promise<void> {
  const { metrics, logger } = deps.context;
  for (const { field, shape, count } of drifts) metrics.schemaDrift.inc({ dataset: spec.dataset, field, shape }, count);
  await recordSchemaDrifts(deps.database, run.dataset, run.tick, drifts).catch((error: unknown) =>
    logger.warn({ jobId: run.jobId, err: describe(error) }, 'could not record the schema drifts of a stored answer'),
  );
  if (quarantined.length === 0) return;
  metrics.quarantined.inc({ dataset: spec.dataset }, quarantined.length);
  logger.warn(
    {
      jobId: run.jobId,
      dataset: spec.dataset,
      target: spec.target,
      quarantined: quarantined.map(({ index, reason }) => ({ index, reason })),
    },
    'elements quarantined, the rest of the answer stored',
  );
}

/** Quarantines the body (or, given `elements`, each of its elements) and completes the job as quarantined. */
async function quarantine<T, Rows>(
  attempt: Attempt<T, Rows>,
  { url, status, body }: { url: string; status: number; body: string },
  reason: string,
  elements?: QuarantinedElement[],
): Promise<JobResult> {
  const { deps, job, spec, run, fence } = attempt;
  const raw = rawRecord(spec, url || spec.endpoint, status, body, new Date());
  await quarantinePayload(deps.database, { run, raw, reason, elements, fence });
  deps.context.metrics.quarantined.inc({ dataset: spec.dataset }, elements?.length ?? 1);
  deps.context.metrics.jobs.inc({ queue: job.queueName, outcome: 'quarantined' });
  deps.context.logger.warn(
    { jobId: run.jobId, dataset: spec.dataset, target: spec.target, reason },
    'payload quarantined',
  );
  await finishTarget(attempt);
  return { outcome: 'quarantined', rowsWritten: 0 };
}

/** How long a job's last attempt waits for Postgres to record its failure (the outage that failed it). */
const FINAL_FAILURE_RECORD_WAIT_MS = 30_000;

/** Records the failure and returns what to throw to BullMQ, as jobOutcome decides. */
async function handleFailure<T, Rows>(attempt: Attempt<T, Rows>, error: unknown): Promise<Error> {
  const { deps, job, spec, run, fence } = attempt;
  const { metrics, logger } = deps.context;
  if (error instanceof JobLockLostError) {
    // Another worker has the job: nothing of this attempt is recorded, nor is the job moved.
    logger.warn({ jobId: run.jobId, dataset: spec.dataset, target: spec.target }, error.message);
    return error;
  }
  const outcome = jobOutcome(error);
  if (outcome === 'rate_limited') {
    // Not an attempt: the job waits until the pause ends (as every request does), then runs again.
    await job.moveToDelayed((error as RateLimitedError).resumeAt.getTime(), job.token);
    metrics.jobs.inc({ queue: job.queueName, outcome: 'rate_limited' });
    return new DelayedError();
  }
  // Only 'retry' tries again; a quarantine error thrown with no body at hand (not expected) fails too.
  const unrecoverable = outcome !== 'retry';
  const final = unrecoverable || run.attempts >= (job.opts.attempts ?? 1);
  const message = describe(error);
  const upstream = error instanceof UpstreamError ? error : undefined;
  const raw =
    upstream?.body !== undefined && upstream.status !== undefined
      ? rawRecord(spec, upstream.url || spec.endpoint, upstream.status, upstream.body, new Date())
      : undefined;
  const record = () =>
    recordJobFailure(deps.database, { run, final, error: message, httpStatus: upstream?.status, raw, fence });
  try {
    // Postgres itself may be what failed. A job with attempts left records its outcome when it runs
    // again; a last attempt has no later chance, so it waits for Postgres (within a bound) to record it.
    await (final
      ? whenReachable(record, {
          waitMs: FINAL_FAILURE_RECORD_WAIT_MS,
          onWait: (waitError) =>
            logger.warn(
              { err: describe(waitError), jobId: run.jobId },
              'PostgreSQL does not answer: waiting to record the job failure',
            ),
        })
      : record());
  } catch (recordError) {
    if (recordError instanceof JobLockLostError) return handleFailure(attempt, recordError);
    logger.warn({ err: describe(recordError), jobId: run.jobId }, 'could not record the job failure');
  }
  metrics.jobs.inc({ queue: job.queueName, outcome: final ? 'failed' : 'retried' });
  if (outcome === 'stop_and_alert') {
    logger.error(
      { jobId: run.jobId, status: upstream?.status },
      'upstream rejected the API key: check UPSTREAM_API_KEY; jobs fail without retries until it is fixed',
    );
  } else {
    logger.warn(
      { jobId: run.jobId, dataset: spec.dataset, target: spec.target, attempt: run.attempts, final, err: message },
      'job failed',
    );
  }
  if (final) await finishTarget(attempt).catch(() => undefined);
  if (unrecoverable) return new UnrecoverableError(message);
  return error instanceof Error ? error : new Error(message);
}

async function finishTarget<T, Rows>({ deps, spec, run }: Attempt<T, Rows>): Promise<void> {
  if (!spec.trackedStream) return;
  const completed = await deps.tracker.finish(spec.trackedStream, spec.tick, run.jobId);
  if (!completed) return;
  const { superseded } = await deps.tracker.progress(spec.trackedStream, spec.tick);
  await announceTickComplete(deps.database, deps.context.logger, spec.trackedStream, spec.tick, { superseded });
}

function rawRecord<T, Rows>(
  spec: IngestionSpec<T, Rows>,
  endpoint: string,
  httpStatus: number,
  body: string,
  receivedAt: Date,
): RawRecord {
  return { dataset: spec.dataset, endpoint, target: spec.target, tick: spec.tick, httpStatus, body, receivedAt };
}
