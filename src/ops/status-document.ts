import { describeTopology, redisTopology } from '../config/redis-topology.ts';
import type { Options } from '../config/options.ts';
import type { Database } from '../db/client.ts';
import {
  loadDatasetFreshness,
  loadFailureCounts,
  loadRecentSchemaDrifts,
  type DatasetFreshnessRow,
  type FailureCount,
  type RecentChanges,
  type SchemaDriftRow,
  type SupersededCount,
} from '../db/stores/status.ts';
import { listWatchedAddresses, type WatchedAddress } from '../db/stores/watchlist.ts';
import type { Queues } from '../queue/queues.ts';
import type { RedisClient } from '../runtime/redis-connection.ts';
import type { CapacityPlan } from '../scheduler/capacity-plan.ts';
import type { RefreshOutlook } from '../scheduler/refresh-outlook.ts';
import type { RefreshOptions } from '../scheduler/refresh-slot.ts';
import type { UpstreamPause } from '../upstream/rate-limiter.ts';
import { readQueueDepths } from './queue-depths.ts';
import { loadQuotaStatus, loadUpstreamPause } from './status-page-data.ts';

/** Watched addresses listed in the status; `chaintap addresses list` lists them all. */
const ADDRESSES_LISTED = 20;

/**
 * What `chaintap status --json` prints and `GET /status.json` serves, by section (docs/operations.md,
 * "JSON output"); the text of `chaintap status` is written from it too.
 */
export interface StatusDocument {
  now: Date;
  /** Per dataset: the newest successful tick of any target and its age, the stalest target's tick. */
  datasets: (DatasetFreshnessRow & { ageSeconds: number | null })[];
  addresses: { count: number; listed: WatchedAddress[] };
  quota: {
    plan: CapacityPlan;
    supersededLastHour: SupersededCount[];
    pause: UpstreamPause | null;
    /** What refreshing by change rate buys the address datasets (docs/quota.md). */
    refresh: RefreshOutlook;
    /** Refreshes of the last 24 hours that saw a change, per dataset. */
    changesLast24h: RecentChanges[];
  };
  /** `redis`: which Redis, as an operator checks it (no credentials): one node, a cluster, or sentinels. */
  queues: { redis: string; depths: Awaited<ReturnType<typeof readQueueDepths>> };
  failuresLast24h: FailureCount[];
  schemaDriftsLast24h: SchemaDriftRow[];
}

export type StatusOptions = RefreshOptions & Pick<Options, 'QUEUE_PREFIX' | Extract<keyof Options, `REDIS_${string}`>>;

/** Reads the status from Postgres and Redis, every section at once. */
export async function loadStatusDocument(input: {
  database: Database;
  queues: Queues;
  /** The queues' Redis, where the upstream pacer keeps its pause. */
  redis: RedisClient;
  options: StatusOptions;
  now: Date;
}): Promise<StatusDocument> {
  const { database, options, now } = input;
  const [freshness, failures, depths, drifts, quota, pause, listed] = await Promise.all([
    loadDatasetFreshness(database),
    loadFailureCounts(database),
    readQueueDepths(input.queues),
    loadRecentSchemaDrifts(database),
    loadQuotaStatus(database, options, now),
    loadUpstreamPause(input.redis, options.QUEUE_PREFIX),
    listWatchedAddresses(database, ADDRESSES_LISTED),
  ]);
  const ageSeconds = (tick: Date | null) => (tick ? (now.getTime() - tick.getTime()) / 1000 : null);
  return {
    now,
    datasets: freshness.map((row) => ({ ...row, ageSeconds: ageSeconds(row.newestTick) })),
    addresses: { count: quota.plan.addresses, listed },
    quota: {
      plan: quota.plan,
      supersededLastHour: quota.superseded,
      pause,
      refresh: quota.refresh,
      changesLast24h: quota.changes,
    },
    queues: { redis: describeTopology(redisTopology(options)), depths },
    failuresLast24h: failures,
    schemaDriftsLast24h: drifts,
  };
}
