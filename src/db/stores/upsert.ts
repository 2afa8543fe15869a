/** Pieces of the writers' upserts. Column names given here are this layer's constants, never input. */

/** The last row of each key (an upsert may touch a row once), in key order: one lock order for concurrent jobs. */
export function lastByKey<T>(rows: T[], key: (row: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const row of rows) byKey.set(key(row), row);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** A jsonb value as JSON text for a text[] parameter (cast to jsonb in SQL); null and undefined are NULL. */
export function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * `do update set ...` giving each column its value (SQL over `t` and `excluded`) only when one moves;
 * `unchanged`: the same test on an incoming row `i`, true when the upsert would change nothing.
 */
export function conflictUpdate(values: Record<string, string>): { update: string; unchanged: string } {
  const columns = Object.keys(values);
  const changed = `(${columns.map((column) => `t.${column}`).join(', ')}) is distinct from (${Object.values(values).join(', ')})`;
  return {
    update: `do update set ${columns.map((column) => `${column} = ${values[column]}`).join(', ')} where ${changed}`,
    unchanged: `not (${changed.replaceAll('excluded.', 'i.')})`,
  };
}

const names = (columns: string) => columns.split(/,\s*/);

/** `do update` taking every column of `columns` (an SQL list) from the incoming row. */
export function overwrite(columns: string): string {
  return conflictUpdate(Object.fromEntries(names(columns).map((column) => [column, `excluded.${column}`]))).update;
}

/** `do update` of a table with history: columns from the newest answer only, first/last seen widened. */
export function newestWins(columns: string, more: Record<string, string> = {}) {
  const newest = (column: string) =>
    `case when excluded.last_seen_at >= t.last_seen_at then excluded.${column} else t.${column} end`;
  return conflictUpdate({
    ...Object.fromEntries(names(columns).map((column) => [column, newest(column)])),
    first_seen_at: 'least(t.first_seen_at, excluded.first_seen_at)',
    last_seen_at: 'greatest(t.last_seen_at, excluded.last_seen_at)',
    ...more,
  });
}

/** A writer's rows written per table, leaving out the tables it wrote nothing to. */
export function writtenCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
}
