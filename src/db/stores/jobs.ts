import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../client.js';
import { datasetWatermarks, ingestionRuns, quarantinedPayloads, type RunStatus } from '../schema/index.js';
import { withTransaction, type Tx } from '../transaction.js';
import { changes, excluded, setOf } from '../upsert-sql.js';
import { insertRawResponses, type RawRecord } from './raw-responses.js';

/** One job: what ingestion_runs records about it. */
export interface RunRecord {
  jobId: string;
  dataset: 'prices' | 'positions' | 'nfts' | 'protocols' | 'maintenance';
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
    const byTable = await args.write(tx);
    const rowsWritten = Object.values(byTable).reduce((sum, n) => sum + n, 0);
    await insertRawResponses(tx, args.raw);
    await upsertRun(tx, args.run, { status: 'succeeded', httpStatus: args.httpStatus ?? null, rowsWritten, error: null }, true);
    await advanceWatermark(tx, args.run);
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
 */
async function upsertRun(
  tx: Tx,
  run: RunRecord,
  outcome: { status: RunStatus; httpStatus: number | null; rowsWritten: number; error: string | null },
  success: boolean,
): Promise<void> {
  const r = ingestionRuns;
  const assignments = [r.jobId, r.status, r.attempts, r.httpStatus, r.rowsWritten, r.error, r.startedAt]
    .map((column): [AnyPgColumn, SQL] => [column, excluded(column)]);
  await tx.db
    .insert(r)
    .values({ ...run, ...outcome, finishedAt: new Date() })
    .onConflictDoUpdate({
      target: [r.dataset, r.target, r.tick],
      set: { ...setOf(r, assignments), finishedAt: sql`excluded.finished_at` },
      setWhere: success ? changes(assignments) : sql`${r.status} <> 'succeeded' and ${changes(assignments)}`,
    });
}

/** The newest successful tick per (dataset, target); an older tick succeeding later leaves it. */
async function advanceWatermark(tx: Tx, run: RunRecord): Promise<void> {
  const w = datasetWatermarks;
  await tx.db
    .insert(w)
    .values({ dataset: run.dataset, target: run.target, lastSuccessTick: run.tick, lastSuccessAt: new Date() })
    .onConflictDoUpdate({
      target: [w.dataset, w.target],
      set: { lastSuccessTick: sql`excluded.last_success_tick`, lastSuccessAt: sql`excluded.last_success_at` },
      setWhere: sql`excluded.last_success_tick > ${w.lastSuccessTick}`,
    });
}

