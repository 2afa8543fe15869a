import type { Database } from '../db/client.js';
import type { Queues } from '../queue/queues.js';
import { withDeadline } from './deadline.js';
import { readQueueDepths, type QueueDepth } from './queue-depths.js';
import {
  loadDatasetFreshness,
  loadRecentFailures,
  loadRecentQuarantined,
  loadRecentSchemaDrifts,
  loadSupersededCounts,
  loadWatchedTokenPrices,
  loadWatchedTokens,
  type DatasetFreshnessRow,
  type FailedRunRow,
  type PriceRow,
  type QuarantinedRow,
  type SchemaDriftRow,
  type SupersededCount,
  type WatchedTokenRow,
} from '../db/stores/status.js';
import { loadCapacityPlan, type CapacityPlan, type CapacityPlanOptions } from '../scheduler/capacity-plan.js';

/** A section of the page either loaded or failed on its own, so one unreachable store never blanks the page. */
export type Section<T> = { ok: true; value: T } | { ok: false; error: string };

export interface StatusPageData {
  now: Date;
  /** Start of the price chart window. */
  since: Date;
  freshness: Section<DatasetFreshnessRow[]>;
  queues: Section<QueueDepth[]>;
  tokens: Section<{ watched: WatchedTokenRow[]; prices: PriceRow[] }>;
  failures: Section<FailedRunRow[]>;
  quarantined: Section<QuarantinedRow[]>;
  /** Schema drifts seen in the last 24 hours. */
  drifts: Section<SchemaDriftRow[]>;
  quota: Section<QuotaStatus>;
}

/** The capacity plan of the current watchlist, and the jobs superseded in the last hour per dataset. */
export interface QuotaStatus {
  plan: CapacityPlan;
  superseded: SupersededCount[];
}

/** What `chaintap status` and the status page show under "Quota", as of `now`. */
export async function loadQuotaStatus(
  database: Database,
  options: CapacityPlanOptions,
  now: Date,
): Promise<QuotaStatus> {
  const [plan, superseded] = await Promise.all([
    loadCapacityPlan(database, options),
    loadSupersededCounts(database, new Date(now.getTime() - 3600_000)),
  ]);
  return { plan, superseded };
}

export const PRICE_WINDOW_HOURS = 24;
const RECENT_ROWS = 20;

async function section<T>(load: () => Promise<T>, timeoutMs: number, what: string): Promise<Section<T>> {
  try {
    return { ok: true, value: await withDeadline(load(), timeoutMs, what) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export async function loadStatusPageData(input: {
  database: Database;
  queues: Queues;
  /** The crons, quota and dataset order of the capacity plan. */
  options: CapacityPlanOptions;
  now: Date;
  timeoutMs: number;
}): Promise<StatusPageData> {
  const { database, now, timeoutMs } = input;
  const since = new Date(now.getTime() - PRICE_WINDOW_HOURS * 3600_000);
  const [freshness, queues, tokens, failures, quarantined, drifts, quota] = await Promise.all([
    section(() => loadDatasetFreshness(database), timeoutMs, 'Postgres'),
    section(() => readQueueDepths(input.queues), timeoutMs, 'Redis'),
    section(
      async () => {
        const [watched, prices] = await Promise.all([
          loadWatchedTokens(database),
          loadWatchedTokenPrices(database, since),
        ]);
        return { watched, prices };
      },
      timeoutMs,
      'Postgres',
    ),
    section(() => loadRecentFailures(database, RECENT_ROWS), timeoutMs, 'Postgres'),
    section(() => loadRecentQuarantined(database, RECENT_ROWS), timeoutMs, 'Postgres'),
    section(() => loadRecentSchemaDrifts(database), timeoutMs, 'Postgres'),
    section(() => loadQuotaStatus(database, input.options, now), timeoutMs, 'Postgres'),
  ]);
  return { now, since, freshness, queues, tokens, failures, quarantined, drifts, quota };
}
