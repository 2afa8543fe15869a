import { UnrecoverableError, Worker, type Job, type Queue } from 'bullmq';
import type { Context } from '../context.js';
import type { Database } from '../db/client.js';
import { commitJob, quarantinePayload, recordJobFailure, type RawRecord, type RunRecord, type Tx } from '../db/index.js';
import type { JobResult } from '../queue/jobs.js';
import type { TickStream, TickTracker } from '../queue/tick-tracker.js';
import { AuthError, InvalidPayloadError, PermanentError, RateLimitedError, UpstreamError } from '../upstream/errors.js';
import type { UpstreamResponse } from '../upstream/client.js';
import { announceTickComplete } from './tick-notification.js';

/** What a processor needs besides its own upstream call. */
export interface IngestionDeps {
  context: Context;
  database: Database;
  tracker: TickTracker;
  /** The job's queue: a 429 pauses it for Retry-After instead of spending an attempt. */
  queue: Queue;
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
  /** Pure: a normalizer. A throw here means the payload cannot be read: it is quarantined. */
  normalize(data: T): Rows;
  write(tx: Tx, rows: Rows): Promise<Record<string, number>>;
}

/**
 * One ingestion job: call the upstream, normalize, and commit rows + run record + raw body in one
 * transaction. Every outcome is recorded: a payload that cannot be read is quarantined with its body,
 * a failure is written to ingestion_runs (with the error body) before BullMQ retries it, and the
 * error class decides the queue behaviour (retry, no retry, or pause for a 429).
 */
export async function runIngestionJob<T, Rows>(
  deps: IngestionDeps,
  job: Job,
  spec: IngestionSpec<T, Rows>,
  signal: AbortSignal,
): Promise<JobResult> {
  const { context, database } = deps;
  const { metrics } = context;
  const queueName = job.queueName;
  const run: RunRecord = {
    jobId: job.id ?? 'unknown',
    dataset: spec.dataset,
    target: spec.target,
    tick: spec.tick,
    attempts: job.attemptsMade + 1,
    startedAt: new Date(),
  };
  const stopTimer = metrics.jobDuration.startTimer({ queue: queueName });
  try {
    let response: UpstreamResponse<T>;
    try {
      response = await spec.fetch(signal);
    } catch (error) {
      if (error instanceof InvalidPayloadError) {
        return await quarantine(deps, job, spec, run, { body: error.body, status: error.status ?? 200, endpoint: error.url || spec.endpoint }, error.message);
      }
      throw error;
    }
    const raw = rawRecord(spec, response.url, response.status, response.body, response.receivedAt);
    let rows: Rows;
    try {
      rows = spec.normalize(response.data);
    } catch (error) {
      return await quarantine(deps, job, spec, run, { body: response.body, status: response.status, endpoint: response.url }, `cannot normalize: ${(error as Error).message}`);
    }
    const { rowsWritten, byTable } = await commitJob(database, {
      run,
      raw: [raw],
      httpStatus: response.status,
      write: (tx) => spec.write(tx, rows),
    });
    for (const [table, count] of Object.entries(byTable)) metrics.rowsWritten.inc({ table }, count);
    metrics.jobs.inc({ queue: queueName, outcome: 'completed' });
    await finishTarget(deps, spec, run.jobId);
    return { outcome: 'succeeded', rowsWritten };
  } catch (error) {
    throw await handleFailure(deps, job, spec, run, error);
  } finally {
    stopTimer();
  }
}

async function quarantine<T, Rows>(
  deps: IngestionDeps,
  job: Job,
  spec: IngestionSpec<T, Rows>,
  run: RunRecord,
  payload: { body: string; status: number; endpoint: string },
  reason: string,
): Promise<JobResult> {
  const raw = rawRecord(spec, payload.endpoint, payload.status, payload.body, new Date());
  await quarantinePayload(deps.database, { run, raw, reason });
  deps.context.metrics.quarantined.inc({ dataset: spec.dataset });
  deps.context.metrics.jobs.inc({ queue: job.queueName, outcome: 'quarantined' });
  deps.context.logger.warn({ jobId: run.jobId, dataset: spec.dataset, target: spec.target, reason }, 'payload quarantined');
  await finishTarget(deps, spec, run.jobId);
  return { outcome: 'quarantined', rowsWritten: 0 };
}

/** Records the failure and returns what to throw to BullMQ. */
async function handleFailure<T, Rows>(
  deps: IngestionDeps,
  job: Job,
  spec: IngestionSpec<T, Rows>,
  run: RunRecord,
  error: unknown,
): Promise<Error> {
  const { metrics, logger } = deps.context;
  if (error instanceof RateLimitedError) {
    // Not an attempt: the queue pauses for Retry-After and the job goes back to waiting.
    await deps.queue.rateLimit(error.retryAfterMs);
    metrics.jobs.inc({ queue: job.queueName, outcome: 'rate_limited' });
    return Worker.RateLimitError();
  }
  const unrecoverable = error instanceof AuthError || error instanceof PermanentError;
  const final = unrecoverable || run.attempts >= (job.opts.attempts ?? 1);
  const message = describe(error);
  const upstream = error instanceof UpstreamError ? error : undefined;
  const raw = upstream?.body !== undefined && upstream.status !== undefined
    ? rawRecord(spec, upstream.url || spec.endpoint, upstream.status, upstream.body, new Date())
    : undefined;
  try {
    await recordJobFailure(deps.database, { run, final, error: message, httpStatus: upstream?.status, raw });
  } catch (recordError) {
    // Postgres itself may be what failed; the job is retried and records its outcome then.
    logger.warn({ err: describe(recordError), jobId: run.jobId }, 'could not record the job failure');
  }
  metrics.jobs.inc({ queue: job.queueName, outcome: final ? 'failed' : 'retried' });
  if (error instanceof AuthError) {
    logger.error({ jobId: run.jobId, status: error.status }, 'upstream rejected the API key: check UPSTREAM_API_KEY; jobs fail without retries until it is fixed');
  } else {
    logger.warn({ jobId: run.jobId, dataset: spec.dataset, target: spec.target, attempt: run.attempts, final, err: message }, 'job failed');
  }
  if (final) await finishTarget(deps, spec, run.jobId).catch(() => undefined);
  if (unrecoverable) return new UnrecoverableError(message);
  return error instanceof Error ? error : new Error(message);
}

async function finishTarget<T, Rows>(deps: IngestionDeps, spec: IngestionSpec<T, Rows>, jobId: string): Promise<void> {
  if (!spec.trackedStream) return;
  const completed = await deps.tracker.finish(spec.trackedStream, spec.tick, jobId);
  if (completed) await announceTickComplete(deps.database, deps.context.logger, spec.trackedStream, spec.tick);
}

function rawRecord<T, Rows>(spec: IngestionSpec<T, Rows>, endpoint: string, httpStatus: number, body: string, receivedAt: Date): RawRecord {
  return { dataset: spec.dataset, endpoint, target: spec.target, tick: spec.tick, httpStatus, body, receivedAt };
}

/** A one-line description without SQL text or parameters (Drizzle errors embed both: log the cause). */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  // Drizzle's query errors embed the whole SQL and its parameters: the cause is what went wrong.
  if (error.message.startsWith('Failed query') && cause instanceof Error) return describe(cause);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `${error.name} ${code}: ${error.message}`;
  return `${error.name}: ${error.message}`;
}
