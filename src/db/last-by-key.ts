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
