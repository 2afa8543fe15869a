import { sleep } from '../runtime/sleep.ts';
import type { Database } from './client.ts';
import { dailyCutoffOf, hourlyCutoffOf, type DownsampleSettings } from './downsample.ts';
import { partitionsOf } from './partitions.ts';
import { runQuery, runSql } from './query.ts';

/**
 * A past month's partition gets no new rows to reuse the space downsampling freed: once wholly
 * thinned to a tier it is rewritten with VACUUM FULL, after waiting for older transactions of the
 * cluster (whose rows it would keep). What cannot be done in time is left for the next run.
 */
export interface CompactionSettings extends DownsampleSettings {
  /** The time downsampling's last run thinned the history as of. */
  thinnedAt: Date;
  lockTimeoutMs: number;
  horizonTimeoutMs: number;
}

export interface CompactionOutcome {
  /** "<partition> <tier>" rewritten. */
  compacted: string[];
  /** Left for the next run: older transactions were still running, or their lock was not free in time. */
  busy: string[];
}

const THINNED_TABLES = ['position_snapshot_points', 'nft_holding_snapshots'] as const;
const WATERMARK_DATASET = 'compact';
const LOCK_NOT_AVAILABLE = '55P03';

/** The tier a partition ending at `upper` is wholly thinned to (by downsampling's cutoffs), or null. Pure. */
export function thinnedTier(
  upper: Date,
  settings: DownsampleSettings & { thinnedAt: Date },
): 'hourly' | 'daily' | null {
  const hourly = hourlyCutoffOf(settings, settings.thinnedAt);
  if (hourly === null) return null;
  const daily = dailyCutoffOf(settings, settings.thinnedAt);
  if (daily !== null && upper.getTime() <= daily) return 'daily';
  return upper.getTime() <= hourly ? 'hourly' : null;
}

export async function compactThinnedPartitions(
  database: Database,
  settings: CompactionSettings,
): Promise<CompactionOutcome> {
  const watermarks = await runSql(database, 'compaction.read')<{ target: string }[]>`
    select target from dataset_watermarks where dataset = ${WATERMARK_DATASET}`;
  const done = new Set(watermarks.map((row) => row.target));
  const due: { name: string; target: string }[] = [];
  for (const table of THINNED_TABLES) {
    for (const partition of await partitionsOf(database, table)) {
      const tier = thinnedTier(partition.to, settings);
      const target = `${partition.name} ${tier}`;
      if (tier !== null && !done.has(target)) due.push({ name: partition.name, target });
    }
  }
  const outcome: CompactionOutcome = { compacted: [], busy: [] };
  if (due.length === 0) return outcome;
  if (!(await waitForOlderTransactions(database, settings.horizonTimeoutMs))) {
    return { compacted: [], busy: due.map((partition) => partition.target) };
  }
  for (const { name, target } of due) {
    if (await vacuumFull(database, name, settings.lockTimeoutMs)) {
      await runSql(database, 'compaction.record')`
        insert into dataset_watermarks (dataset, target, last_success_tick, last_success_at)
        values (${WATERMARK_DATASET}, ${target}, ${settings.thinnedAt}, now())
        on conflict (dataset, target) do update set last_success_tick = excluded.last_success_tick, last_success_at = excluded.last_success_at`;
      outcome.compacted.push(target);
    } else {
      outcome.busy.push(target);
    }
  }
  return outcome;
}

/** True once no session of the cluster has a transaction or snapshot from before this call; false after `timeoutMs`. */
async function waitForOlderTransactions(database: Database, timeoutMs: number): Promise<boolean> {
  const [{ now }] = await runSql(database, 'compaction.read')<{ now: string }[]>`
    select xid(pg_current_xact_id())::text as now`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ older }] = await runSql(database, 'compaction.read')<{ older: number }[]>`
      select count(*)::int as older from pg_stat_activity
      where pid <> pg_backend_pid() and (age(backend_xid) >= age(${now}::xid) or age(backend_xmin) >= age(${now}::xid))`;
    if (older === 0) return true;
    if (Date.now() >= deadline) return false;
    await sleep(200);
  }
}

/** VACUUM FULL on a connection of its own (it cannot run in a transaction); false when the lock was busy. */
async function vacuumFull(database: Database, partition: string, lockTimeoutMs: number): Promise<boolean> {
  return runQuery(database, 'compaction.vacuum', async () => {
    const connection = await database.sql.reserve();
    try {
      await connection`select set_config('lock_timeout', ${`${Math.max(1, Math.round(lockTimeoutMs))}ms`}, false)`;
      await connection`vacuum (full, analyze) ${connection(partition)}`;
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return false;
      throw error;
    } finally {
      await connection`reset lock_timeout`.catch(() => {});
      connection.release();
    }
  });
}
