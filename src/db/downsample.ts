import { partitionsOf, type Partition } from './partitions.ts';
import { runQuery } from './query.ts';
import { withTransaction } from './transaction.ts';
import type { Database } from './client.ts';

/**
 * Downsampling of the snapshot history. Every tick is kept for `fullResolutionDays`; older than
 * that, one snapshot per hour (UTC) of each position or collection of an owner; older than
 * `hourlyDays`, one per day (UTC). The one kept is the last of its hour or day, so a kept row
 * stays kept when it moves on to the daily tier, and the newest history is never touched. The
 * reporting views read whatever snapshots exist, so they answer over the whole history, at the
 * resolution kept. The refresh records (position_refreshes, nft_refreshes) are thinned the same
 * way per owner; a position snapshot's amount and farming entries are part of its row.
 *
 * Deletions run in short statements: one UTC day of one partition for at most SERIES_PER_BATCH
 * positions or (owner, collection) pairs, so that no lock is held for long and live
 * ingestion (which writes the newest month) never waits on it.
 */
export interface DownsampleSettings {
  /** Days every tick is kept; 0 turns downsampling off. */
  fullResolutionDays: number;
  /** Days one snapshot per hour is kept; older ones are thinned to one per day. 0: hourly forever. */
  hourlyDays: number;
}

export interface DownsampleRequest extends DownsampleSettings {
  now: Date;
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
  /** What one kept series is: a position, an owner's collection, or the owner's refreshes. */
  keys: readonly string[];
  /** SQL type of the key columns. */
  keyType: 'text' | 'bigint';
}

interface HistoryGroup {
  /** The partitioned snapshot table whose partitions (months) bound the work. */
  snapshots: HistoryTable;
  /** Its refresh records (not partitioned). */
  refreshes: HistoryTable;
}

const GROUPS: readonly HistoryGroup[] = [
  {
    snapshots: { table: 'position_snapshot_points', keys: ['position_key'], keyType: 'bigint' },
    refreshes: { table: 'position_refreshes', keys: ['owner'], keyType: 'text' },
  },
  {
    snapshots: { table: 'nft_holding_snapshots', keys: ['owner', 'collection_id'], keyType: 'text' },
    refreshes: { table: 'nft_refreshes', keys: ['owner'], keyType: 'text' },
  },
];

const DAY_MS = 86_400_000;
/** Series per delete statement: a day of 15-minute ticks of 64 positions is about 6,000 snapshots. */
const SERIES_PER_BATCH = 64;
/**
 * Ticks written late (a job retried after an outage) can land behind an earlier run: each run looks
 * this far behind where the previous one stopped. Rows already thinned cost little to look at again.
 */
const LATE_WRITE_MARGIN_MS = DAY_MS;
/** Where a run records how far it got (dataset_watermarks), per settings. */
const WATERMARK_DATASET = 'downsample';

/** The watermark target of a setting pair: a run with other settings starts from the beginning. */
export function downsampleTarget(settings: DownsampleSettings): string {
  return `full ${settings.fullResolutionDays}d, hourly ${settings.hourlyDays}d`;
}

/**
 * The time windows whose snapshots may need thinning at `now`, given that a run with the same
 * settings completed at `since` (null: never). Rows before `since - fullResolutionDays` were thinned
 * to hourly, rows before `since - hourlyDays` to daily, by that run. Pure; windows are [from, to),
 * sorted and disjoint, `from` null for "from the beginning".
 */
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

/**
 * Thins the snapshot history as of `now` (see the module comment), from where the previous complete
 * run with the same settings stopped, and records how far it got. Safe to run concurrently with
 * ingestion and to interrupt: an interrupted run leaves no watermark and the next one redoes its windows.
 */
export async function downsampleSnapshots(database: Database, request: DownsampleRequest): Promise<DownsampleOutcome> {
  const deleted: Record<string, number> = {};
  if (request.fullResolutionDays <= 0) return { deleted, days: 0, since: null };
  const target = downsampleTarget(request);
  const since = await previousRun(database, target);
  const windows = downsampleWindows(request, request.now, since);
  const dailyCutoff = dailyCutoffOf(request, request.now);
  let days = 0;
  for (const group of GROUPS) {
    for (const partition of await partitionsOf(database, group.snapshots.table)) {
      for (const day of daysOf(windows, partition)) {
        days++;
        for (const table of [
          { ...group.snapshots, relation: partition.name },
          { ...group.refreshes, relation: group.refreshes.table },
        ]) {
          const count = await thinDay(database, table, day, dailyCutoff);
          if (count > 0) deleted[table.table] = (deleted[table.table] ?? 0) + count;
        }
      }
    }
  }
  await recordRun(database, target, request.now);
  return { deleted, days, since };
}

/** The UTC days [from, to) of the windows that fall in a partition. */
function daysOf(windows: { from: Date | null; to: Date }[], partition: Partition): { from: Date; to: Date }[] {
  const days: { from: Date; to: Date }[] = [];
  for (const window of windows) {
    const start = Math.max(window.from?.getTime() ?? -Infinity, partition.from.getTime());
    const end = Math.min(window.to.getTime(), partition.to.getTime());
    for (let day = Math.floor(start / DAY_MS) * DAY_MS; day < end; day += DAY_MS) {
      const from = Math.max(day, start);
      const to = Math.min(day + DAY_MS, end);
      const last = days[days.length - 1];
      if (last && last.to.getTime() >= from) last.to = new Date(Math.max(last.to.getTime(), to));
      else days.push({ from: new Date(from), to: new Date(to) });
    }
  }
  return days;
}

/**
 * Deletes, within one day of one relation, every row that is not the last of its bucket (its hour,
 * or its day when older than the daily cutoff) for its series, in batches of series. The series
 * are walked through the (keys..., snapshot_at) index one key step at a time (a loose index scan),
 * so that a batch touches only its series' rows of that day.
 */
async function thinDay(
  database: Database,
  table: HistoryTable & { relation: string },
  day: { from: Date; to: Date },
  dailyCutoff: number | null,
): Promise<number> {
  const { sql } = database;
  const relation = sql(table.relation);
  const keyList = sql(table.keys as string[]);
  const matches = (a: string, b: string) =>
    sql.unsafe(table.keys.map((key) => `${a}.${quoteIdent(key)} = ${b}.${quoteIdent(key)}`).join(' and '));
  const bucketEnd =
    dailyCutoff === null
      ? sql`date_trunc('hour', s.snapshot_at, 'UTC') + interval '1 hour'`
      : sql`case when s.snapshot_at < ${new Date(dailyCutoff)} then date_trunc('day', s.snapshot_at, 'UTC') + interval '1 day'
               else date_trunc('hour', s.snapshot_at, 'UTC') + interval '1 hour' end`;
  let deleted = 0;
  let after: string[] | null = null;
  for (;;) {
    const series = await nextSeries(database, table, after);
    if (series.length === 0) return deleted;
    after = table.keys.map((key) => series[series.length - 1]![key]!);
    const columns = table.keys.map((key) => series.map((row) => row[key]!));
    const array = (column: string[]) =>
      table.keyType === 'bigint' ? sql`${column}::bigint[]` : sql`${column}::text[]`;
    const batch =
      columns.length === 2
        ? sql`unnest(${array(columns[0]!)}, ${array(columns[1]!)})`
        : sql`unnest(${array(columns[0]!)})`;
    // runQuery runs a deadlock victim again (a delete may meet ingestion's locks on the same rows).
    const result = await runQuery(
      database,
      'downsample.delete',
      () => sql`
      delete from ${relation} s
      using ${batch} as k(${keyList})
      where ${matches('s', 'k')}
        and s.snapshot_at >= ${day.from} and s.snapshot_at < ${day.to}
        and exists (
          select 1 from ${relation} n
          where ${matches('n', 's')} and n.snapshot_at > s.snapshot_at and n.snapshot_at < ${bucketEnd}
        )`,
    );
    deleted += result.count;
  }
}

/** The next SERIES_PER_BATCH distinct series of a relation after `after`, in index order. */
async function nextSeries(
  database: Database,
  table: HistoryTable & { relation: string },
  after: string[] | null,
): Promise<Record<string, string>[]> {
  const { sql } = database;
  const relation = sql(table.relation);
  const keyList = sql(table.keys as string[]);
  const tuple = (alias: string) => sql.unsafe(table.keys.map((key) => `${alias}.${quoteIdent(key)}`).join(', '));
  const value = (key: string) => (table.keyType === 'bigint' ? sql`${key}::bigint` : sql`${key}::text`);
  const values =
    after === null ? null : after.length === 2 ? sql`${value(after[0]!)}, ${value(after[1]!)}` : value(after[0]!);
  const first =
    values === null
      ? sql`select ${keyList} from ${relation} t order by ${keyList} limit 1`
      : sql`select ${keyList} from ${relation} t where (${tuple('t')}) > (${values}) order by ${keyList} limit 1`;
  // Keys come back as text, whatever their type, and go back in through value() above.
  return runQuery(
    database,
    'downsample.read',
    () => sql<Record<string, string>[]>`
    with recursive series as (
      (select f.*, 1 as n from (${first}) f)
      union all
      (select x.*, p.n + 1 from series p cross join lateral (
        select ${keyList} from ${relation} t where (${tuple('t')}) > (${tuple('p')}) order by ${keyList} limit 1
      ) x where p.n < ${SERIES_PER_BATCH})
    )
    select ${sql.unsafe(table.keys.map((key) => `${quoteIdent(key)}::text`).join(', '))} from series`,
  );
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function previousRun(database: Database, target: string): Promise<Date | null> {
  const [row] = await runQuery(
    database,
    'downsample.read',
    () => database.sql<{ tick: Date }[]>`
    select last_success_tick as tick from dataset_watermarks where dataset = ${WATERMARK_DATASET} and target = ${target}`,
  );
  return row?.tick ?? null;
}

/** Records the run (dataset_freshness shows it) and forgets runs with other settings. */
async function recordRun(database: Database, target: string, now: Date): Promise<void> {
  await withTransaction(database, 'downsample.record', async ({ sql }) => {
    await sql`delete from dataset_watermarks where dataset = ${WATERMARK_DATASET} and target <> ${target}`;
    await sql`
      insert into dataset_watermarks (dataset, target, last_success_tick, last_success_at)
      values (${WATERMARK_DATASET}, ${target}, ${now}, now())
      on conflict (dataset, target) do update
      set last_success_tick = greatest(dataset_watermarks.last_success_tick, excluded.last_success_tick), last_success_at = excluded.last_success_at`;
  });
}
