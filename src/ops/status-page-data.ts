import type { Database } from '../db/client.js';
import type { Queues } from '../queue/queues.js';
import { withDeadline } from './deadline.js';
import { readQueueDepths, type QueueDepth } from './queue-depths.js';
import {
  loadDatasetFreshness,
  loadRecentFailures,
  loadRecentQuarantined,
  loadRecentSchemaDrifts,
  loadWatchedTokenPrices,
  loadWatchedTokens,
  type DatasetFreshnessRow,
  type FailedRunRow,
  type PriceRow,
  type QuarantinedRow,
  type SchemaDriftRow,
  type WatchedTokenRow,
} from '../db/stores/status.js';

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
  now: Date;
  timeoutMs: number;
}): Promise<StatusPageData> {
  const { database, now, timeoutMs } = input;
  const since = new Date(now.getTime() - PRICE_WINDOW_HOURS * 3600_000);
  const [freshness, queues, tokens, failures, quarantined, drifts] = await Promise.all([
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
  ]);
  return { now, since, freshness, queues, tokens, failures, quarantined, drifts };
}
