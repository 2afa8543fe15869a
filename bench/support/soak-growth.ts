import type { SoakDay } from './soak-results.ts';

/**
 * The database's growth a day once the windows shorter than the month have filled (days 17-30), as
 * docs/operations.md documents it ("Measured over days"), for the configuration it was measured at:
 * the soak's defaults (200 wallets of the simulator's living world, 50 tokens, the default crons).
 * The soak's growth target compares its own with this; a change that moves it updates both. 109 MB:
 * the soak of 2026-11-30 at 89fbc03 (119 on 2026-11-29 at 3098c8d, 8 % more).
 */
export const DOCUMENTED_GROWTH = { wallets: 200, tokens: 50, world: 'living', mbPerDay: 109 } as const;

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
