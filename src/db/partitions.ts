import type { Database } from './client.ts';
import { runQuery, runSql } from './query.ts';
import { withTransaction, type Tx } from './transaction.ts';

/** The tables range-partitioned by month (UTC) of their time column; referenced tables first. */
export const PARTITIONED_TABLES = ['token_price_points', 'position_snapshot_points', 'nft_holding_snapshots'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

const ARCHIVE_SCHEMA = 'chaintap_archive';

/** First day (UTC) of the month of a time, as YYYY-MM-01. */
function monthOf(time: Date): string {
  return `${time.toISOString().slice(0, 7)}-01`;
}

/** The month `offset` months from that of `time`, as its first day (UTC). */
function monthStart(time: Date, offset = 0): Date {
  return new Date(Date.UTC(time.getUTCFullYear(), time.getUTCMonth() + offset, 1));
}

/**
 * Makes sure the table's partitions exist for every month of `times`, in one statement of the
 * caller's transaction; none for months this process ensured before (known-partitions.ts).
 */
export async function ensureMonthPartitions(tx: Tx, table: PartitionedTable, times: Date[]): Promise<void> {
  const months = [...new Set(times.map(monthOf))].filter((month) => !tx.knownPartitions?.has(`${table}/${month}`));
  if (months.length === 0) return;
  await tx.sql`
    select chaintap_ensure_month_partition(${table}, m.month)
    from unnest(${months}::date[]) with ordinality as m(month, n)
    order by m.n`;
  for (const month of months) tx.knownPartitions?.add(`${table}/${month}`);
}

/**
 * Creates the partitions for each month from `from` to `to`, ahead of time; returns how many. One
 * short transaction each: attaching one locks the tables its foreign keys link.
 */
export async function ensurePartitions(database: Database, range: { from: Date; to: Date }): Promise<number> {
  const months: string[] = [];
  for (let month = monthStart(range.from); month <= range.to; month = monthStart(month, 1)) months.push(monthOf(month));
  let created = 0;
  for (const table of PARTITIONED_TABLES) {
    for (const month of months) {
      // withTransaction runs a deadlock victim again (partitions of FK-linked tables lock each other).
      created += await withTransaction(database, 'partitions.ensure', async (tx) => {
        const [row] = await tx.sql<{ created: boolean }[]>`
          select chaintap_ensure_month_partition(${table}, ${month}::date) as created`;
        return row!.created ? 1 : 0;
      });
    }
  }
  return created;
}

export type Partition = { name: string; from: Date; to: Date };

export async function partitionsOf(database: Database, table: string): Promise<Partition[]> {
  const rows = await runSql(database, 'partitions.list')<{ name: string; bounds: string }[]>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bounds
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${`public.${table}`}::regclass`;
  const partitions: Partition[] = [];
  for (const { name, bounds } of rows) {
    const match = /FROM \('([^']+)'\) TO \('([^']+)'\)/.exec(bounds);
    if (match) partitions.push({ name, from: new Date(match[1]!), to: new Date(match[2]!) });
  }
  return partitions.sort((a, b) => a.from.getTime() - b.from.getTime());
}

/**
 * Moves the price partitions of months ended `olderThanDays` before `now` (0: none) to the archive
 * schema for an operator to dump or drop; returns their names. A later write makes a fresh one.
 */
export async function detachOldPricePartitions(
  database: Database,
  olderThanDays: number,
  now: Date,
): Promise<string[]> {
  if (olderThanDays <= 0) return [];
  const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000);
  const archived: string[] = [];
  const old = (await partitionsOf(database, 'token_price_points')).filter((partition) => partition.to <= cutoff);
  for (const { name } of old) {
    await withTransaction(database, 'partitions.detach', async (tx) => {
      await tx.sql`alter table token_price_points detach partition ${tx.sql(name)}`;
      const [taken] =
        await tx.sql`select 1 from pg_tables where schemaname = ${ARCHIVE_SCHEMA} and tablename = ${name}`;
      const archivedName = taken ? `${name}_${now.getTime()}` : name;
      if (taken) await renameWithIndexes(tx, name, archivedName);
      await tx.sql`alter table ${tx.sql(archivedName)} set schema ${tx.sql(ARCHIVE_SCHEMA)}`;
      archived.push(`${ARCHIVE_SCHEMA}.${archivedName}`);
    });
  }
  return archived;
}

/** Renames a table and the indexes named after it (index names must be unique in a schema too). */
async function renameWithIndexes(tx: Tx, name: string, newName: string): Promise<void> {
  const indexes = await tx.sql<{ index: string }[]>`
    select i.relname as index from pg_index x join pg_class i on i.oid = x.indexrelid
    where x.indrelid = ${`public.${name}`}::regclass and starts_with(i.relname, ${`${name}_`})`;
  await tx.sql`alter table ${tx.sql(name)} rename to ${tx.sql(newName)}`;
  for (const { index } of indexes) {
    await tx.sql`alter index ${tx.sql(index)} rename to ${tx.sql(newName + index.slice(name.length))}`;
  }
}

/**
 * Rebuilds, packed and concurrently, the primary key of this and last month's price partitions:
 * concurrent 50-token jobs split its pages in halves (42 B a price instead of 28).
 */
export async function compactPriceIndexes(database: Database, now: Date): Promise<string[]> {
  const names = [-1, 0].map(
    (offset) => `token_price_points_p${monthStart(now, offset).toISOString().slice(0, 7).replace('-', '_')}`,
  );
  const rows = await runSql(database, 'partitions.list')<{ index: string }[]>`
    select x.indexrelid::regclass::text as index
    from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    join pg_index x on x.indrelid = c.oid and x.indisprimary
    where i.inhparent = 'public.token_price_points'::regclass
      and c.relname = any(${names}::text[])
    order by 1`;
  for (const { index } of rows) {
    await runQuery(database, 'partitions.reindex', () => database.sql.unsafe(`reindex index concurrently ${index}`));
  }
  return rows.map((row) => row.index);
}
