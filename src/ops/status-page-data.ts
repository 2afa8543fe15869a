import type { Sql } from '../db/client.js';
import type { Queues } from '../queue/queues.js';
import { withDeadline } from './deadline.js';
import { readQueueDepths, type QueueDepth } from './queue-depths.js';
import {
  loadDatasetFreshness,
  loadRecentFailures,
  loadRecentQuarantined,
  loadWatchedTokenPrices,
  loadWatchedTokens,
  type DatasetFreshnessRow,
  type FailedRunRow,
  type PriceRow,
  type QuarantinedRow,
  type WatchedTokenRow,
} from './status-queries.js';

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
  sql: Sql;
  queues: Queues;
  now: Date;
  timeoutMs: number;
}): Promise<StatusPageData> {
  const { sql, now, timeoutMs } = input;
  const since = new Date(now.getTime() - PRICE_WINDOW_HOURS * 3600_000);
  const [freshness, queues, tokens, failures, quarantined] = await Promise.all([
    section(() => loadDatasetFreshness(sql), timeoutMs, 'Postgres'),
    section(() => readQueueDepths(input.queues), timeoutMs, 'Redis'),
    section(async () => {
      const [watched, prices] = await Promise.all([loadWatchedTokens(sql), loadWatchedTokenPrices(sql, since)]);
      return { watched, prices };
    }, timeoutMs, 'Postgres'),
    section(() => loadRecentFailures(sql, RECENT_ROWS), timeoutMs, 'Postgres'),
    section(() => loadRecentQuarantined(sql, RECENT_ROWS), timeoutMs, 'Postgres'),
  ]);
  return { now, since, freshness, queues, tokens, failures, quarantined };
}
