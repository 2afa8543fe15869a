import type { Database } from '../db/client.ts';
import { loadRunCounts } from '../db/stores/status.ts';
import { formatTable } from './text-table.ts';

/** What ingestion_runs says about the given ticks (with `jobIds`: about those jobs only), per dataset. */
export async function summarizeRuns(database: Database, datasets: string[], ticks: Date[], jobIds?: string[]) {
  const rows = await loadRunCounts(database, datasets, ticks, jobIds);
  return datasets.map((dataset) => {
    const of = (status: string) => Number(rows.find((r) => r.dataset === dataset && r.status === status)?.jobs ?? 0);
    const mine = rows.filter((r) => r.dataset === dataset);
    return {
      dataset,
      jobs: mine.reduce((sum, r) => sum + Number(r.jobs), 0),
      succeeded: of('succeeded'),
      quarantined: of('quarantined'),
      failed: of('failed'),
      /** Not run: their targets already had a job of a newer tick. */
      superseded: of('superseded'),
      pending: of('running') + of('retrying'),
      rowsWritten: mine.reduce((sum, r) => sum + Number(r.rows ?? 0), 0),
    };
  });
}

export function formatSummary(rows: Awaited<ReturnType<typeof summarizeRuns>>): string {
  const header = ['dataset', 'jobs', 'succeeded', 'quarantined', 'failed', 'superseded', 'rows written'];
  const cells = rows.map((r) =>
    [r.dataset, r.jobs, r.succeeded, r.quarantined, r.failed, r.superseded, r.rowsWritten].map(String),
  );
  return formatTable([header, ...cells], (column) => column > 0).join('\n');
}
