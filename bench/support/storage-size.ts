import type { Sql } from '../../src/db/client.ts';

/** Bytes on disk of a table with its partitions: heap, TOAST (with its index) and indexes. */
export interface TableBytes {
  heap: number;
  toast: number;
  indexes: number;
  total: number;
}

/**
 * Main-fork sizes (the free space and visibility maps are left out: a few pages per relation) of a
 * table, every partition under it, their TOAST tables and all their indexes. A partitioned parent
 * and its partitioned indexes hold no data themselves.
 */
export async function tableBytes(sql: Sql, table: string): Promise<TableBytes> {
  const [row] = await sql<{ heap: string; toast: string; indexes: string }[]>`
    with recursive rels(oid) as (
      select ${table}::regclass::oid
      union all
      select i.inhrelid from pg_inherits i join rels r on i.inhparent = r.oid
    ),
    sizes as (
      select pg_relation_size(c.oid) as heap,
             case when c.reltoastrelid = 0 then 0
                  else pg_relation_size(c.reltoastrelid)
                       + (select coalesce(sum(pg_relation_size(x.indexrelid)), 0) from pg_index x where x.indrelid = c.reltoastrelid)
             end as toast,
             (select coalesce(sum(pg_relation_size(x.indexrelid)), 0) from pg_index x where x.indrelid = c.oid) as indexes
      from rels r join pg_class c on c.oid = r.oid
    )
    select sum(heap)::text as heap, sum(toast)::text as toast, sum(indexes)::text as indexes from sizes`;
  const heap = Number(row!.heap);
  const toast = Number(row!.toast);
  const indexes = Number(row!.indexes);
  return { heap, toast, indexes, total: heap + toast + indexes };
}

/** tableBytes of several tables, by name. */
export async function tablesBytes(sql: Sql, tables: readonly string[]): Promise<Record<string, TableBytes>> {
  const entries = await Promise.all(tables.map(async (table) => [table, await tableBytes(sql, table)] as const));
  return Object.fromEntries(entries);
}

/** Per-table differences `after - before` of total bytes. */
export function bytesGrown(
  before: Record<string, TableBytes>,
  after: Record<string, TableBytes>,
): Record<string, number> {
  return Object.fromEntries(
    Object.keys(after).map((table) => [table, after[table]!.total - (before[table]?.total ?? 0)]),
  );
}
