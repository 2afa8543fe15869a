import type { SoakDay } from './soak-results.ts';

/** One counted table's part in the database's growth between two days. */
export interface TableGrowth {
  table: string;
  rowsAdded: number;
  /** Its bytes per row on the first day (on disk: heap, TOAST and indexes). */
  bytesPerRow: number;
  /** rowsAdded × bytesPerRow: what the rows it kept cost at the first day's rate. */
  explained: number;
  measured: number;
}

/**
 * The database's growth between two days against what the rows kept explain: each counted table's
 * rows added at its bytes per row on the first day. The tables not counted (catalogs, queues'
 * bookkeeping) explain nothing, so their growth shows as the difference. Pure.
 */
export function growthByRows(
  first: SoakDay,
  last: SoakDay,
): { measured: number; explained: number; tables: TableGrowth[] } {
  const bytes = (day: SoakDay, table: string) => day.tables[table] ?? 0;
  const tables = Object.keys(first.rows ?? {}).map((table): TableGrowth => {
    const rowsBefore = first.rows?.[table] ?? 0;
    const rowsAdded = (last.rows?.[table] ?? 0) - rowsBefore;
    const bytesPerRow = rowsBefore > 0 ? bytes(first, table) / rowsBefore : 0;
    return {
      table,
      rowsAdded,
      bytesPerRow,
      explained: rowsAdded * bytesPerRow,
      measured: bytes(last, table) - bytes(first, table),
    };
  });
  const all = new Set([...Object.keys(first.tables), ...Object.keys(last.tables)]);
  const measured = [...all].reduce((sum, table) => sum + bytes(last, table) - bytes(first, table), 0);
  return { measured, explained: tables.reduce((sum, t) => sum + t.explained, 0), tables };
}
