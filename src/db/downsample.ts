import type { Database, Sql } from './client.ts';
import { partitionsOf, type Partition } from './partitions.ts';
import { runSql } from './query.ts';
import { withTransaction } from './transaction.ts';

/**
 * Every tick is kept for `fullResolutionDays`, then the last of each UTC hour per series, past
 * `hourlyDays` the last of each UTC day (a kept row stays kept). Deletions run a day and a batch of
 * series at a time, so that live ingestion never waits on a lock for long.
 */
export interface DownsampleSettings {
  /** Days every tick is kept; 0 turns downsampling off. */
  fullResolutionDays: number;
  /** Days one snapshot per hour is kept; older ones are thinned to one per day. 0: hourly forever. */
  hourlyDays: number;
}

export interface DownsampleOutcome {
  /** Rows deleted per table (a position snapshot row holds its amount and farming entries). */
  deleted: Record<string, number>;
  /** Day chunks examined. */
  days: number;
  /** Where the run started: after the previous complete run with the same settings, or the beginning. */
  since: Date | null;
}

interface HistoryTable {
  table: string;
  /** The columns naming one kept series (constant identifiers). */
  keys: readonly string[];
  keyType: 'text' | 'bigint';
}

/** Each partitioned snapshot table with its (unpartitioned) refresh records. */
const GROUPS: readonly { snapshots: HistoryTable; refreshes: HistoryTable }[] = [
  {
    snapshots: { table: 'position_snapshot_points', keys: ['position_key'], keyType: 'bigint' },
    refreshes: { table: 'position_refreshes', keys: ['owner'], keyType: 'text' },
  },
  {
    snapshots: { table: 'nft_holding_snapshots', keys: ['owner', 'collection_id'], keyType: 'text' },
    refreshes: { table: 'nft_refreshes', keys: ['owner'], keyType: 'text' },
  },
];

/** The refresh tables thinning deletes from: unpartitioned, so no monthly rewrite rebuilds them. */
export const REFRESH_TABLES: readonly string[] = GROUPS.map((group) => group.refreshes.table);

const DAY_MS = 86_400_000;
/** Series per delete statement: a day of 15-minute ticks of 64 positions is about 6,000 snapshots. */
const SERIES_PER_BATCH = 64;
/** Ticks written late (a job retried after an outage) may land behind the previous run: look back this far. */
const LATE_WRITE_MARGIN_MS = DAY_MS;
const WATERMARK_DATASET = 'downsample';

/** The watermark target of a setting pair: a run with other settings starts from the beginning. */
export function downsampleTarget(settings: DownsampleSettings): string {
  return `full ${settings.fullResolutionDays}d, hourly ${settings.hourlyDays}d`;
}

/** The windows [from, to) to thin at `now` after a run completed at `since` (null: never). Pure. */
export function downsampleWindows(
  settings: DownsampleSettings,
  now: Date,
  since: Date | null,
): { from: Date | null; to: Date }[] {
  const fullCutoff = hourlyCutoffOf(settings, now);
  if (fullCutoff === null) return [];
  const windows: { from: number | null; to: number }[] = [];
  const add = (ageDays: number, to: number) => {
    const from = since === null ? null : since.getTime() - ageDays * DAY_MS - LATE_WRITE_MARGIN_MS;
    if (from === null || from < to) windows.push({ from, to });
  };
  add(settings.fullResolutionDays, fullCutoff);
  const dailyCutoff = dailyCutoffOf(settings, now);
  if (dailyCutoff !== null) add(Math.max(settings.hourlyDays, settings.fullResolutionDays), dailyCutoff);
  windows.sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity));
  const merged: { from: number | null; to: number }[] = [];
  for (const window of windows) {
    const last = merged[merged.length - 1];
    if (last && (window.from === null || window.from <= last.to)) last.to = Math.max(last.to, window.to);
    else merged.push({ ...window });
  }
  return merged.map((w) => ({ from: w.from === null ? null : new Date(w.from), to: new Date(w.to) }));
}

/** Before this time one snapshot per hour is kept (at most); null when downsampling is off. */
export function hourlyCutoffOf(settings: DownsampleSettings, now: Date): number | null {
  return settings.fullResolutionDays <= 0 ? null : now.getTime() - settings.fullResolutionDays * DAY_MS;
}

/** Before this time one snapshot per day is kept; null when hourly is kept forever. */
export function dailyCutoffOf(settings: DownsampleSettings, now: Date): number | null {
  if (settings.hourlyDays <= 0) return null;
  return now.getTime() - Math.max(settings.hourlyDays, settings.fullResolutionDays) * DAY_MS;
}

/** Thins the history from where the last complete run with the same settings stopped; safe to interrupt. */
export async function downsampleSnapshots(
  database: Database,
  request: DownsampleSettings & { now: Date },
): Promise<DownsampleOutcome> {
  const deleted: Record<string, number> = {};
  if (request.fullResolutionDays <= 0) return { deleted, days: 0, since: null };
  const target = downsampleTarget(request);
  const [previous] = await runSql(database, 'downsample.read')<{ tick: Date }[]>`
    select last_success_tick as tick from dataset_watermarks where dataset = ${WATERMARK_DATASET} and target = ${target}`;
  const since = previous?.tick ?? null;
  const windows = downsampleWindows(request, request.now, since);
  const dailyCutoff = dailyCutoffOf(request, request.now);
  let days = 0;
  for (const { snapshots, refreshes } of GROUPS) {
    for (const partition of await partitionsOf(database, snapshots.table)) {
      for (const day of daysOf(windows, partition)) {
        days++;
        for (const [table, relation] of [
          [snapshots, partition.name],
          [refreshes, refreshes.table],
        ] as const) {
          const count = await thinDay(database, table, relation, day, dailyCutoff);
          if (count > 0) deleted[table.table] = (deleted[table.table] ?? 0) + count;
        }
      }
    }
  }
  // Recorded for dataset_freshness; runs with other settings are forgotten.
  await withTransaction(database, 'downsample.record', async ({ sql }) => {
    await sql`delete from dataset_watermarks where dataset = ${WATERMARK_DATASET} and target <> ${target}`;
    await sql`
      insert into dataset_watermarks (dataset, target, last_success_tick, last_success_at)
      values (${WATERMARK_DATASET}, ${target}, ${request.now}, now())
      on conflict (dataset, target) do update
      set last_success_tick = greatest(dataset_watermarks.last_success_tick, excluded.last_success_tick), last_success_at = excluded.last_success_at`;
  });
  return { deleted, days, since };
}

/** The UTC days [from, to) of the windows (disjoint: downsampleWindows merges them) that fall in a partition. */
function daysOf(windows: { from: Date | null; to: Date }[], partition: Partition): { from: Date; to: Date }[] {
  const days: { from: Date; to: Date }[] = [];
  for (const window of windows) {
    const start = Math.max(window.from?.getTime() ?? -Infinity, partition.from.getTime());
    const end = Math.min(window.to.getTime(), partition.to.getTime());
    for (let day = Math.floor(start / DAY_MS) * DAY_MS; day < end; day += DAY_MS) {
      days.push({ from: new Date(Math.max(day, start)), to: new Date(Math.min(day + DAY_MS, end)) });
    }
  }
  return days;
}

/** Deletes, within one day of `relation`, every row that is not the last of its hour (or day) in its series. */
async function thinDay(
  database: Database,
  table: HistoryTable,
  relation: string,
  day: { from: Date; to: Date },
  dailyCutoff: number | null,
): Promise<number> {
  const { sql } = database;
  const keys = (alias: string) => qualified(sql, table, alias);
  const bucketEnd =
    dailyCutoff === null
      ? sql`date_trunc('hour', s.snapshot_at, 'UTC') + interval '1 hour'`
      : sql`case when s.snapshot_at < ${new Date(dailyCutoff)} then date_trunc('day', s.snapshot_at, 'UTC') + interval '1 day'
               else date_trunc('hour', s.snapshot_at, 'UTC') + interval '1 hour' end`;
  let deleted = 0;
  let after: string[] | null = null;
  for (;;) {
    const series = await nextSeries(database, table, relation, after);
    if (series.length === 0) return deleted;
    after = table.keys.map((key) => series[series.length - 1]![key]!);
    const arrays = table.keys.map((key) => series.map((row) => row[key]!));
    // runSql runs a deadlock victim again (a delete may meet ingestion's locks on the same rows).
    const result = await runSql(database, 'downsample.delete')`
      delete from ${sql(relation)} s
      using unnest(${typedList(sql, arrays, `${table.keyType}[]`)}) as k(${sql(table.keys as string[])})
      where (${keys('s')}) = (${keys('k')})
        and s.snapshot_at >= ${day.from} and s.snapshot_at < ${day.to}
        and exists (
          select 1 from ${sql(relation)} n
          where (${keys('n')}) = (${keys('s')}) and n.snapshot_at > s.snapshot_at and n.snapshot_at < ${bucketEnd}
        )`;
    deleted += result.count;
  }
}

/** The next SERIES_PER_BATCH series after `after`, by a loose index scan; keys come back as text. */
async function nextSeries(
  database: Database,
  table: HistoryTable,
  relation: string,
  after: string[] | null,
): Promise<Record<string, string>[]> {
  const { sql } = database;
  const keys = (alias: string) => qualified(sql, table, alias);
  const keyList = sql(table.keys as string[]);
  const from = sql(relation);
  const past = after === null ? sql`` : sql`where (${keys('t')}) > (${typedList(sql, after, table.keyType)})`;
  const first = sql`select ${keyList} from ${from} t ${past} order by ${keyList} limit 1`;
  return runSql(database, 'downsample.read')<Record<string, string>[]>`
    with recursive series as (
      (select f.*, 1 as n from (${first}) f)
      union all
      (select x.*, p.n + 1 from series p cross join lateral (
        select ${keyList} from ${from} t where (${keys('t')}) > (${keys('p')}) order by ${keyList} limit 1
      ) x where p.n < ${SERIES_PER_BATCH})
    )
    select ${sql.unsafe(table.keys.map((key) => `${key}::text`).join(', '))} from series`;
}

/** The key columns of `table` as `alias.key, ...` (constant identifiers). */
function qualified(sql: Sql, table: HistoryTable, alias: string) {
  return sql.unsafe(table.keys.map((key) => `${alias}.${key}`).join(', '));
}

/** The values as the parameter list `$1::type, $2::type, ...`. */
function typedList(sql: Sql, values: (string | string[])[], type: string) {
  return values.map((value) => sql`${value}::${sql.unsafe(type)}`).reduce((list, item) => sql`${list}, ${item}`);
}
