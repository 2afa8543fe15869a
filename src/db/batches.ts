/** postgres.js refuses 65,534 or more bind parameters in one statement. */
const MAX_PARAMETERS = 65_533;

/** Splits rows into batches of at most floor(65,533 / columns) rows: one statement each. */
export function batchesFor<T>(rows: T[], columns: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / columns));
  const batches: T[][] = [];
  for (let i = 0; i < rows.length; i += size) batches.push(rows.slice(i, i + size));
  return batches;
}

/**
 * Keeps the last row of each key (Postgres rejects an upsert that touches one row twice), in key
 * order: concurrent jobs that upsert shared rows (protocols, collections) then lock them in the same
 * order and cannot deadlock.
 */
export function lastByKey<T>(rows: T[], key: (row: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const row of rows) byKey.set(key(row), row);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}
