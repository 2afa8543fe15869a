import type { Database } from '../../src/db/client.ts';

/** Operational tables: every run adds to them by design (receipts, run records). */
export const OPERATIONAL_TABLES = ['ingestion_runs', 'raw_responses', 'raw_body_dictionaries', 'quarantined_payloads'];

/** Base tables of the public schema (partitioned tables as their parent). */
export async function dataTables(database: Database): Promise<string[]> {
  const rows = await database.sql<{ name: string }[]>`
    select c.relname as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
    order by 1`;
  return rows.map((row) => row.name);
}

/** Rows per table (partitioned tables counted through their parent), views excluded. */
export async function countRows(database: Database): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await dataTables(database)) {
    const [row] = await database.sql.unsafe(`select count(*)::int as n from "${table}"`);
    counts[table] = row!.n as number;
  }
  return counts;
}

/**
 * Row count and a checksum over every column of every data table (operational tables and any
 * columns named in `ignore` left out): equal digests mean equal data, to the last digit.
 */
export async function tableDigest(
  database: Database,
  options: { ignoreColumns?: Record<string, string[]>; ignoreTables?: string[] } = {},
): Promise<Record<string, { rows: number; md5: string }>> {
  const ignoreTables = new Set([...OPERATIONAL_TABLES, ...(options.ignoreTables ?? [])]);
  const digest: Record<string, { rows: number; md5: string }> = {};
  for (const table of await dataTables(database)) {
    if (ignoreTables.has(table) || table.startsWith('__drizzle')) continue;
    const ignored = new Set(options.ignoreColumns?.[table] ?? []);
    const columns = (
      await database.sql<{ name: string }[]>`
        select column_name as name from information_schema.columns
        where table_schema = 'public' and table_name = ${table} order by ordinal_position`
    )
      .map((c) => c.name)
      .filter((name) => !ignored.has(name));
    const row = columns.map((c) => `coalesce("${c}"::text, '∅')`).join(` || '|' || `);
    const [result] = await database.sql.unsafe(
      `select count(*)::int as rows, coalesce(md5(string_agg(r, E'\\n' order by r)), '') as md5
       from (select ${row} as r from "${table}") t`,
    );
    digest[table] = { rows: result!.rows as number, md5: result!.md5 as string };
  }
  return digest;
}
