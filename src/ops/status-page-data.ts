import type { Database } from '../db/client.ts';
import type { Queues } from '../queue/queues.ts';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { upstreamPaceKey } from '../queue/redis-keys.ts';
import { readPause, type UpstreamPause } from '../upstream/rate-limiter.ts';
import { loadSection, type Section } from './deadline.ts';
import { readQueueDepths } from './queue-depths.ts';
import {
  loadDatasetFreshness,
  loadRecentFailures,
  loadRecentQuarantined,
  loadRecentSchemaDrifts,
  loadRecentChanges,
  loadSupersededCounts,
  loadWatchedTokenPrices,
  loadWatchedTokens,
} from '../db/stores/status.ts';
import { loadPortfolioSeries, loadWatchedAddressValues } from '../db/stores/reports.ts';
import { loadCapacityPlan } from '../scheduler/capacity-plan.ts';
import { loadRefreshOutlook } from '../scheduler/refresh-outlook.ts';
import type { RefreshOptions } from '../scheduler/refresh-slot.ts';
import { loadAlertsSection } from './status-page-alerts.ts';
import { loadReplicaLag } from '../db/read-replica.ts';

export type { Section };

/** Everything the status page shows: the sections of loadStatusPageData, each loaded or failed on its own. */
export type StatusPageData = Awaited<ReturnType<typeof loadStatusPageData>>;

const SPARKLINE_DAYS = 7;
/**
 * A point every 6 hours: 29 a week. Each point sums one refresh over every position the address
 * ever held (about 0.2 ms), and the page reloads every 30 s: 150 addresses cost about a second.
 */
const SPARKLINE_STEP_MS = 6 * 3600_000;

export type QuotaStatus = Awaited<ReturnType<typeof loadQuotaStatus>>;

/** "Quota" of `chaintap status` and the status page: the watchlist's capacity plan, last hour's superseded jobs. */
export async function loadQuotaStatus(database: Database, options: RefreshOptions, now: Date) {
  const [plan, superseded, refresh, changes] = await Promise.all([
    loadCapacityPlan(database, options),
    loadSupersededCounts(database, new Date(now.getTime() - 3600_000)),
    loadRefreshOutlook(database, options, { now }),
    loadRecentChanges(database, new Date(now.getTime() - 86_400_000)),
  ]);
  return { plan, superseded, refresh, changes };
}

/** Over budget: even refreshing by change rate, some max age cannot be held, or prices do not fit. */
export function quotaOverBudget({ plan, refresh }: Pick<QuotaStatus, 'plan' | 'refresh'>): boolean {
  return refresh.unheld || plan.datasets.some((dataset) => dataset.dataset === 'prices' && !dataset.fits);
}

/** The pause of every process's upstream requests in force (read from the pacer in Redis), if any. */
export async function loadUpstreamPause(redis: RedisClient, queuePrefix: string): Promise<UpstreamPause | null> {
  return (await readPause(redis, upstreamPaceKey(queuePrefix))) ?? null;
}

const PRICE_WINDOW_HOURS = 24;
const RECENT_ROWS = 20;

export async function loadStatusPageData(input: {
  /** What every section reads: the read database (DATABASE_READ_URL), or the primary when none is set. */
  database: Database;
  /** Whether `database` is a read replica: the page then says how far it is behind the primary. */
  readReplica?: boolean;
  queues: Queues;
  /** The queues' Redis, where the upstream pacer is (its pause). */
  redis: RedisClient;
  /** The crons, quota and dataset order of the capacity plan, and the prefix of the Redis keys. */
  options: RefreshOptions & { QUEUE_PREFIX: string };
  now: Date;
  timeoutMs: number;
}) {
  const { database, now, timeoutMs } = input;
  // The start of the price charts' window.
  const since = new Date(now.getTime() - PRICE_WINDOW_HOURS * 3600_000);
  const postgres = <T>(load: () => Promise<T>) => loadSection(load, timeoutMs, 'Postgres');
  const redis = <T>(load: () => Promise<T>) => loadSection(load, timeoutMs, 'Redis');
  const sections = {
    freshness: postgres(() => loadDatasetFreshness(database)),
    queues: redis(() => readQueueDepths(input.queues)),
    tokens: postgres(async () => {
      const [watched, prices] = await Promise.all([
        loadWatchedTokens(database),
        loadWatchedTokenPrices(database, since),
      ]);
      return { watched, prices };
    }),
    failures: postgres(() => loadRecentFailures(database, RECENT_ROWS)),
    quarantined: postgres(() => loadRecentQuarantined(database, RECENT_ROWS)),
    // Seen in the last 24 hours.
    drifts: postgres(() => loadRecentSchemaDrifts(database)),
    quota: postgres(() => loadQuotaStatus(database, input.options, now)),
    // The pause of the whole upstream budget in force (a 429's Retry-After), null when none.
    pause: redis(() => loadUpstreamPause(input.redis, input.options.QUEUE_PREFIX)),
    // Every watched address with its latest value, and its portfolio (the report's figures) at every
    // SPARKLINE_STEP_MS of the sparkline window.
    addresses: postgres(async () => {
      const from = new Date(now.getTime() - SPARKLINE_DAYS * 86_400_000);
      const watched = await loadWatchedAddressValues(database);
      const owners = watched.map((address) => address.address);
      const series = owners.length
        ? await loadPortfolioSeries(database, { owners, from, to: now, intervalMs: SPARKLINE_STEP_MS })
        : [];
      return { watched, series, from, to: now };
    }),
    alerts: loadAlertsSection(database, timeoutMs),
    // When the page reads a replica (DATABASE_READ_URL): how far it is behind the primary.
    replica: input.readReplica ? loadSection(() => loadReplicaLag(database), timeoutMs, 'the read replica') : undefined,
  };
  // Every section loads at once; the page waits for the slowest.
  const loaded = Object.fromEntries(
    await Promise.all(Object.entries(sections).map(async ([name, section]) => [name, await section])),
  ) as { [Name in keyof typeof sections]: Awaited<(typeof sections)[Name]> };
  return { now, since, ...loaded };
}
