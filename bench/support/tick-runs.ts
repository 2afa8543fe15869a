import type { Sql } from '../../src/db/client.ts';

/** What ingestion_runs says about one tick of some datasets. */
export interface TickRuns {
  runs: number;
  succeeded: number;
  rowsWritten: number;
  /** When the last job of the tick committed (finished_at is set inside its transaction). */
  lastCommitAt: Date | null;
}

export async function tickRuns(sql: Sql, datasets: string[], tick: Date): Promise<TickRuns> {
  const [row] = await sql<{ runs: number; succeeded: number; rowsWritten: string | null; lastCommitAt: Date | null }[]>`
    select count(*)::int as runs,
           count(*) filter (where status = 'succeeded')::int as succeeded,
           sum(rows_written)::text as "rowsWritten",
           max(finished_at) as "lastCommitAt"
    from ingestion_runs where dataset = any(${datasets}::text[]) and tick = ${tick}`;
  return {
    runs: row!.runs,
    succeeded: row!.succeeded,
    rowsWritten: Number(row!.rowsWritten ?? 0),
    lastCommitAt: row!.lastCommitAt,
  };
}
