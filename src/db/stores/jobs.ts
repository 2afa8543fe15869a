import { sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { quarantinedPayloads, type RunStatus } from '../schema/index.js';
import { withTransaction, type Tx } from '../transaction.js';
import { findRawBodyDictionaries, insertRawResponses, type RawRecord } from './raw-responses.js';

/** One job: what ingestion_runs records about it. */
export interface RunRecord {
  jobId: string;
  /** 'backfill': price jobs of `chaintap backfill`, kept apart so they do not count as scheduled freshness. */
  dataset: 'prices' | 'positions' | 'nfts' | 'backfill' | 'protocols' | 'maintenance';
  target: string;
  tick: Date;
  attempts: number;
  startedAt: Date;
}

/** Error texts are cut to this length (an upstream error body may be large; the raw body is kept). */
const MAX_ERROR_LENGTH = 4000;

/**
 * The job's one transaction: its rows (`write`), its raw responses, its ingestion_runs row
 * (succeeded) and its dataset watermark commit together or not at all.
 */
export async function commitJob(
  database: Database,
  args: { run: RunRecord; raw: RawRecord[]; httpStatus?: number; write: (tx: Tx) => Promise<Record<string, number>> },
): Promise<{ rowsWritten: number; byTable: Record<string, number> }> {
  return withTransaction(database, async (tx) => {
    // Sent ahead of the writes (pipelined with them): the bodies are compressed against these.
    const dictionaries = findRawBodyDictionaries(tx, args.raw);
    // Awaited below; when a write fails first, its rejection must not go unhandled.
    dictionaries.catch(() => {});
    const byTable = await args.write(tx);
    const rowsWritten = Object.values(byTable).reduce((sum, n) => sum + n, 0);
    // Sent together: postgres.js pipelines them (one round trip), Postgres runs them in order.
    await Promise.all([
      insertRawResponses(tx, args.raw, await dictionaries),
      upsertRun(tx, args.run, { status: 'succeeded', httpStatus: args.httpStatus ?? null, rowsWritten, error: null }, true),
      advanceWatermark(tx, args.run),
    ]);
    return { rowsWritten, byTable };
  });
}

/**
 * Records a failed attempt: `final` (no retry left, or not retryable) gives status failed, else
 * retrying. The error body, when the upstream sent one, is kept in raw_responses. A tick that has
 * succeeded keeps its succeeded row.
 */
export async function recordJobFailure(
  database: Database,
  args: { run: RunRecord; final: boolean; error: string; httpStatus?: number; raw?: RawRecord },
): Promise<void> {
  await withTransaction(database, async (tx) => {
    if (args.raw) await insertRawResponses(tx, [args.raw]);
    const status = args.final ? 'failed' : 'retrying';
    await upsertRun(tx, args.run, { status, httpStatus: args.httpStatus ?? null, rowsWritten: 0, error: args.error.slice(0, MAX_ERROR_LENGTH) }, false);
  });
}

/**
 * A body that failed validation: in one transaction, the raw body, its quarantined_payloads row
 * (with the reason) and the run's status quarantined. The same body for the same job is quarantined once.
 */
export async function quarantinePayload(database: Database, args: { run: RunRecord; raw: RawRecord; reason: string }): Promise<void> {
  await withTransaction(database, async (tx) => {
    const [rawResponseId] = await insertRawResponses(tx, [args.raw]);
    const q = quarantinedPayloads;
    await tx.db
      .insert(q)
      .values({
        receivedAt: args.raw.receivedAt,
        dataset: args.raw.dataset,
        endpoint: args.raw.endpoint,
        target: args.raw.target,
        tick: args.raw.tick,
        httpStatus: args.raw.httpStatus,
        reason: args.reason,
        body: args.raw.body.replaceAll('\u0000', '\\u0000'),
        rawResponseId,
      })
      .onConflictDoUpdate({ target: q.rawResponseId, set: { reason: sql`excluded.reason` }, setWhere: sql`${q.reason} is distinct from excluded.reason` });
    await upsertRun(tx, args.run, { status: 'quarantined', httpStatus: args.raw.httpStatus, rowsWritten: 0, error: args.reason.slice(0, MAX_ERROR_LENGTH) }, false);
  });
}

/**
 * One ingestion_runs row per (dataset, target, tick), holding the latest outcome. Only a success
 * replaces a succeeded row: a failed re-run of a tick whose rows are stored does not hide them.
 * The row changes only when one of its values moves (finished_at alone does not count).
 */
async function upsertRun(
  tx: Tx,
  run: RunRecord,
  outcome: { status: RunStatus; httpStatus: number | null; rowsWritten: number; error: string | null },
  success: boolean,
): Promise<void> {
  await tx.sql`
    insert into ingestion_runs as r (job_id, dataset, target, tick, status, attempts, http_status, rows_written, error, started_at, finished_at)
    values (${run.jobId}, ${run.dataset}, ${run.target}, ${run.tick}, ${outcome.status}, ${run.attempts}, ${outcome.httpStatus},
            ${outcome.rowsWritten}, ${outcome.error}, ${run.startedAt}, ${new Date()})
    on conflict (dataset, target, tick) do update set
      job_id = excluded.job_id, status = excluded.status, attempts = excluded.attempts, http_status = excluded.http_status,
      rows_written = excluded.rows_written, error = excluded.error, started_at = excluded.started_at, finished_at = excluded.finished_at
    where (${success} or r.status <> 'succeeded')
      and (r.job_id, r.status, r.attempts, r.http_status, r.rows_written, r.error, r.started_at) is distinct from
          (excluded.job_id, excluded.status, excluded.attempts, excluded.http_status, excluded.rows_written, excluded.error, excluded.started_at)`;
}

/** The newest successful tick per (dataset, target); an older tick succeeding later leaves it. */
async function advanceWatermark(tx: Tx, run: RunRecord): Promise<void> {
  await tx.sql`
    insert into dataset_watermarks as w (dataset, target, last_success_tick, last_success_at)
    values (${run.dataset}, ${run.target}, ${run.tick}, ${new Date()})
    on conflict (dataset, target) do update set last_success_tick = excluded.last_success_tick, last_success_at = excluded.last_success_at
    where excluded.last_success_tick > w.last_success_tick`;
}
