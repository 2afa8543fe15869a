import type { Database } from '../client.ts';
import type { ingestionRuns, RunStatus } from '../schema/index.ts';
import type { QuarantinedElement } from '../schema/rows.ts';
import { runSql } from '../query.ts';
import { storableText } from '../storable-text.ts';
import { withTransaction, type Tx } from '../transaction.ts';
import { insertRawResponses, type RawRecord } from './raw-responses.ts';

/** One job: what ingestion_runs records about it. 'backfill': price jobs of `chaintap backfill`, apart from scheduled freshness. */
export type RunRecord = Pick<
  typeof ingestionRuns.$inferSelect,
  'jobId' | 'target' | 'tick' | 'attempts' | 'startedAt'
> & {
  dataset: 'prices' | 'positions' | 'nfts' | 'backfill' | 'protocols' | 'maintenance';
};

/** Error texts are cut to this length (an upstream error body may be large; the raw body is kept). */
const MAX_ERROR_LENGTH = 4000;

/** Runs last in a job's transaction: throws, rolling it back, when the job is no longer this worker's. */
export type Fence = () => Promise<void>;

/** The job's one transaction: its rows (`write`), raw responses, run row and watermark commit together. */
export async function commitJob(
  database: Database,
  args: {
    run: RunRecord;
    raw: RawRecord[];
    httpStatus?: number;
    write: (tx: Tx) => Promise<Record<string, number>>;
    /** How many elements were stored, and those quarantined alone. */
    elements?: { stored: number; quarantined: QuarantinedElement[] };
    fence?: Fence;
  },
): Promise<{ rowsWritten: number; byTable: Record<string, number> }> {
  return withTransaction(database, `${args.run.dataset}.write`, async (tx) => {
    const byTable = await args.write(tx);
    const rowsWritten = Object.values(byTable).reduce((sum, n) => sum + n, 0);
    const quarantined = args.elements?.quarantined ?? [];
    // Sent together: postgres.js pipelines them (one round trip), Postgres runs them in order.
    const [rawIds] = await Promise.all([
      insertRawResponses(tx, args.raw),
      upsertRun(tx, args.run, {
        status: 'succeeded',
        httpStatus: args.httpStatus,
        rowsWritten,
        elementsStored: args.elements?.stored,
        elementsQuarantined: quarantined.length,
      }),
      advanceWatermark(tx, args.run),
    ]);
    if (quarantined.length > 0 && args.raw[0])
      await insertQuarantined(tx, args.raw[0], rawIds[0] ?? null, quarantined.map(elementEntry));
    await args.fence?.();
    return { rowsWritten, byTable };
  });
}

/** Records a failed attempt (`final`: failed, else retrying), keeping the error body; a succeeded row stays. */
export async function recordJobFailure(
  database: Database,
  args: { run: RunRecord; final: boolean; error: string; httpStatus?: number; raw?: RawRecord; fence?: Fence },
): Promise<void> {
  await withTransaction(database, 'jobs.record_failure', async (tx) => {
    if (args.raw) await insertRawResponses(tx, [args.raw]);
    const status = args.final ? 'failed' : 'retrying';
    await upsertRun(tx, args.run, { status, httpStatus: args.httpStatus, error: args.error });
    await args.fence?.();
  });
}

/** An answer that could not be stored: its body, quarantined whole or per element, and the run's status. */
export async function quarantinePayload(
  database: Database,
  args: { run: RunRecord; raw: RawRecord; reason: string; elements?: QuarantinedElement[]; fence?: Fence },
): Promise<void> {
  await withTransaction(database, 'jobs.quarantine', async (tx) => {
    const [rawResponseId] = await insertRawResponses(tx, [args.raw]);
    const whole = { index: null, body: args.raw.body, reason: args.reason };
    await insertQuarantined(tx, args.raw, rawResponseId ?? null, args.elements?.map(elementEntry) ?? [whole]);
    await upsertRun(tx, args.run, {
      status: 'quarantined',
      httpStatus: args.raw.httpStatus,
      elementsQuarantined: args.elements?.length,
      error: args.reason,
    });
    await args.fence?.();
  });
}

/** Deletes quarantined payloads received `olderThanDays` before `now` (QUARANTINE_RETENTION_DAYS; 0 keeps all). */
export function pruneQuarantinedPayloads(database: Database, olderThanDays: number, now: Date): Promise<number> {
  return pruneOlderThan(database, 'quarantined_payloads', 'received_at', olderThanDays, now);
}

/** Deletes runs of ticks `olderThanDays` before `now` (RUNS_RETENTION_DAYS; 0 keeps all): nothing reads them. */
export function pruneIngestionRuns(database: Database, olderThanDays: number, now: Date): Promise<number> {
  return pruneOlderThan(database, 'ingestion_runs', 'tick', olderThanDays, now);
}

/** One statement: these tables hold a row per job or unreadable answer. Returns how many rows. */
async function pruneOlderThan(
  database: Database,
  table: 'quarantined_payloads' | 'ingestion_runs',
  column: string,
  olderThanDays: number,
  now: Date,
): Promise<number> {
  if (olderThanDays <= 0) return 0;
  const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000);
  const { sql } = database;
  return (await runSql(database, `${table}.prune`)`delete from ${sql(table)} where ${sql(column)} < ${cutoff}`).count;
}

/** A quarantined element as received (JSON), with its index in the answer. */
const elementEntry = ({ index, element, reason }: QuarantinedElement) => ({
  index,
  body: JSON.stringify(element) ?? 'undefined',
  reason,
});

/** quarantined_payloads rows: a whole body (index null: its own unique key) or one row per element. */
async function insertQuarantined(
  tx: Tx,
  raw: RawRecord,
  rawResponseId: number | null,
  entries: { index: number | null; body: string; reason: string }[],
): Promise<void> {
  if (entries.length === 0) return;
  const [first] = entries;
  if (first!.index === null) {
    // A scalar parameter: inside a text[] one, postgres.js escapes a body of many quotes in pieces
    // that took 150 MB of heap for an 8 MB answer.
    await tx.sql`
      insert into quarantined_payloads as q (received_at, dataset, endpoint, target, tick, http_status, raw_response_id, reason, body)
      values (${raw.receivedAt}, ${raw.dataset}, ${raw.endpoint}, ${raw.target}, ${raw.tick}, ${raw.httpStatus}, ${rawResponseId},
              ${storableText(first!.reason)}, ${storableText(first!.body)})
      on conflict (raw_response_id) where element_index is null
      do update set reason = excluded.reason where q.reason is distinct from excluded.reason`;
    return;
  }
  await tx.sql`
    insert into quarantined_payloads as q (received_at, dataset, endpoint, target, tick, http_status, raw_response_id, reason, body, element_index)
    select ${raw.receivedAt}, ${raw.dataset}, ${raw.endpoint}, ${raw.target}, ${raw.tick}, ${raw.httpStatus}, ${rawResponseId},
           e.reason, e.body, e.element_index
    from unnest(${entries.map((entry) => storableText(entry.reason))}::text[],
                ${entries.map((entry) => storableText(entry.body))}::text[],
                ${entries.map((entry) => entry.index)}::int[]) as e(reason, body, element_index)
    on conflict (raw_response_id, element_index) where element_index is not null
    do update set reason = excluded.reason where q.reason is distinct from excluded.reason`;
}

/**
 * One ingestion_runs row per (dataset, target, tick), holding the latest outcome; only a success
 * replaces a succeeded one. The row changes only when a value moves (finished_at alone does not).
 */
async function upsertRun(
  tx: Tx,
  run: RunRecord,
  outcome: {
    status: RunStatus;
    httpStatus?: number;
    rowsWritten?: number;
    elementsStored?: number;
    elementsQuarantined?: number;
    error?: string;
  },
): Promise<void> {
  // An upstream's text may hold what Postgres text cannot (a NUL): stored escaped.
  const error = outcome.error === undefined ? null : storableText(outcome.error.slice(0, MAX_ERROR_LENGTH));
  const { status, httpStatus = null, rowsWritten = 0, elementsStored = 0, elementsQuarantined = 0 } = outcome;
  await tx.sql`
    insert into ingestion_runs as r (job_id, dataset, target, tick, status, attempts, http_status, rows_written,
                                     elements_stored, elements_quarantined, error, started_at, finished_at)
    values (${run.jobId}, ${run.dataset}, ${run.target}, ${run.tick}, ${status}, ${run.attempts}, ${httpStatus},
            ${rowsWritten}, ${elementsStored}, ${elementsQuarantined}, ${error}, ${run.startedAt}, ${new Date()})
    on conflict (dataset, target, tick) do update set
      job_id = excluded.job_id, status = excluded.status, attempts = excluded.attempts, http_status = excluded.http_status,
      rows_written = excluded.rows_written, elements_stored = excluded.elements_stored,
      elements_quarantined = excluded.elements_quarantined, error = excluded.error, started_at = excluded.started_at,
      finished_at = excluded.finished_at
    where (${status === 'succeeded'} or r.status <> 'succeeded')
      and (r.job_id, r.status, r.attempts, r.http_status, r.rows_written, r.elements_stored, r.elements_quarantined, r.error, r.started_at)
          is distinct from
          (excluded.job_id, excluded.status, excluded.attempts, excluded.http_status, excluded.rows_written, excluded.elements_stored,
           excluded.elements_quarantined, excluded.error, excluded.started_at)`;
}

/** The newest successful tick per (dataset, target); an older tick succeeding later leaves it. */
async function advanceWatermark(tx: Tx, run: RunRecord): Promise<void> {
  await tx.sql`
    insert into dataset_watermarks as w (dataset, target, last_success_tick, last_success_at)
    values (${run.dataset}, ${run.target}, ${run.tick}, ${new Date()})
    on conflict (dataset, target) do update set last_success_tick = excluded.last_success_tick, last_success_at = excluded.last_success_at
    where excluded.last_success_tick > w.last_success_tick`;
}

/** A job replaced by its target's job of a newer tick before it ran. */
export type SupersededRun = Pick<RunRecord, 'jobId' | 'dataset' | 'target' | 'tick'> & { supersededBy: Date };

/** Records superseded jobs (the newer tick in `error`); a run with a final outcome keeps it. */
export async function recordSupersededRuns(database: Database, runs: SupersededRun[]): Promise<void> {
  if (runs.length === 0) return;
  const now = new Date();
  const column = <T>(pick: (run: SupersededRun) => T) => runs.map(pick);
  await runSql(database, 'jobs.record_superseded')`
    insert into ingestion_runs as r (job_id, dataset, target, tick, status, attempts, error, started_at, finished_at)
    select job_id, dataset, target, tick, 'superseded', 0, error, ${now}, ${now}
    from unnest(${column((run) => run.jobId)}::text[], ${column((run) => run.dataset)}::text[],
                ${column((run) => run.target)}::text[], ${column((run) => run.tick.toISOString())}::timestamptz[],
                ${column((run) => `superseded by the tick ${run.supersededBy.toISOString()}`)}::text[])
         as x(job_id, dataset, target, tick, error)
    on conflict (dataset, target, tick) do update set
      status = 'superseded', error = excluded.error, finished_at = excluded.finished_at
    where r.status in ('running', 'retrying')`;
}

/** When each target of a dataset last succeeded: the producer serves the stalest first, so targets take turns. */
export async function loadTargetWatermarks(database: Database, dataset: string): Promise<Map<string, Date>> {
  const rows = await runSql(database, 'watermarks.read')<{ target: string; tick: Date }[]>`
    select target, last_success_tick as tick from dataset_watermarks where dataset = ${dataset}`;
  return new Map(rows.map((row) => [row.target, row.tick]));
}
