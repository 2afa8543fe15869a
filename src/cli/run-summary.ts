import type { Database } from '../db/client.ts';
import { loadRunCounts } from '../db/stores/status.ts';

export interface RunSummaryRow {
  dataset: string;
  jobs: number;
  succeeded: number;
  quarantined: number;
  failed: number;
  pending: number;
  rowsWritten: number;
}

/** What ingestion_runs says about the given ticks (with `jobIds`: about those jobs only), per dataset. */
export async function summarizeRuns(
  database: Database,
  datasets: string[],
  ticks: Date[],
  jobIds?: string[],
): Promise<RunSummaryRow[]> {
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
      pending: of('running') + of('retrying'),
      rowsWritten: mine.reduce((sum, r) => sum + Number(r.rows ?? 0), 0),
    };
  });
}

export function formatSummary(rows: RunSummaryRow[]): string {
  const header = ['dataset', 'jobs', 'succeeded', 'quarantined', 'failed', 'rows written'];
  const lines = rows.map((r) => [r.dataset, r.jobs, r.succeeded, r.quarantined, r.failed, r.rowsWritten].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [format(header), ...lines.map(format)].join('\n');
}
