import type { Job } from 'bullmq';
import {
  commitJob,
  compactPriceIndexes,
  detachOldPricePartitions,
  ensurePartitions,
  pruneRawResponses,
  writeProtocols,
} from '../db/index.ts';
import { compactThinnedPartitions } from '../db/compact-partitions.ts';
import { pruneIngestionRuns, pruneQuarantinedPayloads } from '../db/stores/jobs.ts';
import { pruneAlertEvents } from '../db/stores/alert-events.ts';
import { downsampleSnapshots } from '../db/downsample.ts';
import { reindexThinnedTables } from '../db/reindex-thinned.ts';
import { vacuumPrunedTables } from '../db/vacuum-pruned.ts';
import { normalizeProtocols } from '../normalize/index.ts';
import type { JobResult, MaintenanceJobData } from '../queue/jobs.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { runIngestionJob, type IngestionDeps } from './ingestion-job.ts';

const DAY = 24 * 3600 * 1000;
/** Partitions are created this far ahead so that no insert ever waits on DDL at a month boundary. */
const PARTITIONS_AHEAD_MS = 62 * DAY;
/** How long compaction waits for older transactions and for readers of a partition before leaving it. */
const COMPACTION_WAITS = { horizonTimeoutMs: 60_000, lockTimeoutMs: 5_000 };

/** The maintenance queue's two jobs (MaintenanceJobData): the housekeeping, and the protocol sync. */
export function processMaintenance(deps: IngestionDeps, client: UpstreamClient) {
  return (job: Job<MaintenanceJobData>, signal: AbortSignal): Promise<JobResult> => {
    if (job.data.kind !== 'protocols') return housekeeping(deps, job);
    // The protocol list, an ingestion job like any other: retried, quarantined or failed on its own.
    return runIngestionJob(deps, job, signal, {
      dataset: 'protocols',
      target: 'all',
      tick: new Date(job.data.tick),
      endpoint: '/v2/defi/protocols',
      fetch: (abort) => client.fetchProtocols({ signal: abort }),
      normalize: (data) => normalizeProtocols(data),
      write: (tx, rows) => writeProtocols(tx, rows),
    });
  };
}

/**
 * The daily housekeeping, Postgres only (so it runs while the upstream is down): retention pruning
 * (raw bodies, quarantine, runs, sent alert events), partitions ahead, detaching old price
 * partitions, thinning and compacting the snapshot history, then VACUUM of the tables it pruned and
 * a rebuild of the thinned tables' indexes that no compaction rewrites.
 */
async function housekeeping(deps: IngestionDeps, job: Job<MaintenanceJobData>): Promise<JobResult> {
  const tick = new Date(job.data.tick);
  const { options, logger } = deps.context;
  const created = await ensurePartitions(deps.database, {
    from: new Date(tick.getTime() - DAY),
    to: new Date(tick.getTime() + PARTITIONS_AHEAD_MS),
  });
  const pruned = await pruneRawResponses(deps.database, options.RAW_RETENTION_DAYS, tick);
  const quarantinePruned = await pruneQuarantinedPayloads(deps.database, options.QUARANTINE_RETENTION_DAYS, tick);
  const runsPruned = await pruneIngestionRuns(deps.database, options.RUNS_RETENTION_DAYS, tick);
  const alertEventsPruned = await pruneAlertEvents(deps.database, options.ALERT_EVENTS_RETENTION_DAYS, tick);
  const detached =
    options.PRICE_PARTITION_DETACH_DAYS > 0
      ? await detachOldPricePartitions(deps.database, options.PRICE_PARTITION_DETACH_DAYS, tick)
      : [];
  // Concurrent price jobs leave the price key index half-split; rebuilt packed once a day.
  const compacted = await compactPriceIndexes(deps.database, tick);
  const tiers = {
    fullResolutionDays: options.SNAPSHOT_FULL_RESOLUTION_DAYS,
    hourlyDays: options.SNAPSHOT_HOURLY_DAYS,
  };
  const downsampled = await downsampleSnapshots(deps.database, { now: tick, ...tiers });
  const compaction = options.SNAPSHOT_COMPACTION
    ? await compactThinnedPartitions(deps.database, { ...tiers, thinnedAt: tick, ...COMPACTION_WAITS })
    : { compacted: [], busy: [] };
  const pruneCounts: Record<string, number> = {
    raw_responses: pruned,
    quarantined_payloads: quarantinePruned,
    ingestion_runs: runsPruned,
    alert_events: alertEventsPruned,
    ...downsampled.deleted,
  };
  const vacuumed = Object.keys(pruneCounts).filter((table) => pruneCounts[table]! > 0);
  await vacuumPrunedTables(deps.database, vacuumed);
  // downsampled.deleted names only the tables it deleted rows from.
  const reindexed = await reindexThinnedTables(deps.database, Object.keys(downsampled.deleted));
  // Its own run record, for dataset_freshness.
  await commitJob(deps.database, {
    run: {
      jobId: job.id ?? 'maintenance',
      dataset: 'maintenance',
      target: 'housekeeping',
      tick,
      attempts: job.attemptsMade + 1,
      startedAt: new Date(),
    },
    raw: [],
    write: async () => ({}),
  });
  if (compaction.busy.length > 0)
    logger.warn(
      { partitions: compaction.busy },
      'partitions to compact were in use (or older transactions still ran); left for the next run',
    );
  logger.info(
    {
      tick: tick.toISOString(),
      partitionsCreated: created,
      rawPruned: pruned,
      quarantinePruned,
      runsPruned,
      alertEventsPruned,
      partitionsDetached: detached,
      priceIndexesCompacted: compacted.length,
      snapshotsThinned: downsampled.deleted,
      partitionsCompacted: compaction.compacted,
      tablesVacuumed: vacuumed,
      tablesReindexed: reindexed,
    },
    'maintenance done',
  );
  return { outcome: 'succeeded', rowsWritten: 0 };
}
