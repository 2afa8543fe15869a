import type { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import type { Queues } from '../../src/queue/queues.ts';

/**
 * Per table (partitions counted in their parent): its bytes on disk with indexes and TOAST, the bytes
 * of its indexes alone, and the free space in those files that Postgres reuses for new rows (as the
 * free space map records it: pg_freespacemap, which the soak's database has; VACUUM fills it in).
 */
export async function tableFigures(
  sql: Sql,
): Promise<{ tables: Record<string, number>; indexes: Record<string, number>; free: Record<string, number> }> {
  const rows = await sql<{ table: string; bytes: string; indexBytes: string; freeBytes: string }[]>`
    select coalesce(parent.relname, c.relname) as table, sum(pg_total_relation_size(c.oid)) as bytes,
      sum(pg_indexes_size(c.oid)) as "indexBytes",
      sum(case when c.relkind = 'r' then
        (select coalesce(sum(f.avail), 0) from pg_freespace(c.oid) f)
        + (select coalesce(sum(f.avail), 0) from pg_class t, pg_freespace(t.oid) f where t.oid = c.reltoastrelid)
        + (select coalesce(sum(f.avail), 0) from pg_index x, pg_freespace(x.indexrelid) f where x.indrelid = c.oid)
      else 0 end) as "freeBytes"
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_inherits i on i.inhrelid = c.oid
    left join pg_class parent on parent.oid = i.inhparent
    where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname <> '__drizzle_migrations'
    group by 1
    order by 1`;
  const by = (value: (row: (typeof rows)[number]) => string) =>
    Object.fromEntries(rows.map((row) => [row.table, Number(value(row))]));
  return { tables: by((row) => row.bytes), indexes: by((row) => row.indexBytes), free: by((row) => row.freeBytes) };
}

/** The tables that grow with time (what the growth target counts), and those of what wallets ever held. */
export const COUNTED_TABLES = [
  'position_snapshot_points',
  'nft_holding_snapshots',
  'position_refreshes',
  'nft_refreshes',
  'token_price_points',
  'ingestion_runs',
  'raw_responses',
  'alert_events',
  'positions',
  'nft_tokens',
] as const;

/** Rows per table of COUNTED_TABLES, counted (the statistics' estimates drift between VACUUMs). */
export async function tableRows(sql: Sql): Promise<Record<string, number>> {
  const counts = await Promise.all(
    COUNTED_TABLES.map(
      async (table) =>
        [table, (await sql<{ n: number }[]>`select count(*)::int as n from ${sql(table)}`)[0]!.n] as const,
    ),
  );
  return Object.fromEntries(counts);
}

/** used_memory and the key count of the soak's own Redis (no other user: both are the soak's). */
export async function redisFigures(redis: Redis): Promise<{ usedMemory: number; keys: number }> {
  const info = await redis.info('memory');
  return { usedMemory: Number(/^used_memory:(\d+)/m.exec(info)?.[1]), keys: await redis.dbsize() };
}

/** Jobs not finished per queue: waiting, prioritized, delayed and active. */
export async function queueDepths(queues: Queues): Promise<Record<string, number>> {
  const entries = await Promise.all(
    Object.entries(queues).map(async ([name, queue]) => {
      const counts = await queue.getJobCounts('wait', 'prioritized', 'delayed', 'active', 'waiting-children');
      return [name, Object.values(counts).reduce((sum, n) => sum + n, 0)] as const;
    }),
  );
  return Object.fromEntries(entries);
}
