import type { Sql } from '../db/client.js';

/**
 * The read-only queries behind the status page and the scrape-time gauges. Each one is bounded
 * (LIMIT, a time window on an indexed column, or one row per dataset) because the page reloads
 * every 30 s and Prometheus scrapes every worker.
 */

export interface DatasetFreshnessRow {
  dataset: string;
  targets: number;
  /** Newest tick any target of the dataset completed. */
  newestTick: Date | null;
  /** Tick of the stalest target: the one that completed longest ago. */
  oldestTick: Date | null;
  lastSuccessAt: Date | null;
}

export function loadDatasetFreshness(sql: Sql): Promise<DatasetFreshnessRow[]> {
  return sql<DatasetFreshnessRow[]>`
    select dataset,
           count(*)::int as targets,
           max(last_success_tick) as "newestTick",
           min(last_success_tick) as "oldestTick",
           max(last_success_at) as "lastSuccessAt"
    from dataset_freshness
    group by dataset
    order by dataset`;
}

export interface FailedRunRow {
  id: string;
  dataset: string;
  target: string;
  tick: Date;
  status: string;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** Newest first. `order by r.id`, not the text `id` of the output: that would sort as text and scan the table. */
export function loadRecentFailures(sql: Sql, limit: number): Promise<FailedRunRow[]> {
  return sql<FailedRunRow[]>`
    select id::text, dataset, target, tick, status, attempts, http_status as "httpStatus",
           left(error, 300) as error, started_at as "startedAt", finished_at as "finishedAt"
    from ingestion_runs r
    where status in ('failed', 'retrying', 'quarantined')
    order by r.id desc
    limit ${limit}`;
}

export interface QuarantinedRow {
  id: string;
  receivedAt: Date;
  dataset: string;
  endpoint: string;
  target: string | null;
  tick: Date | null;
  httpStatus: number | null;
  reason: string;
}

export function loadRecentQuarantined(sql: Sql, limit: number): Promise<QuarantinedRow[]> {
  return sql<QuarantinedRow[]>`
    select id::text, received_at as "receivedAt", dataset, endpoint, target, tick,
           http_status as "httpStatus", left(reason, 300) as reason
    from quarantined_payloads q
    order by q.id desc
    limit ${limit}`;
}

export interface WatchedTokenRow {
  coinType: string;
  symbol: string | null;
  price: string | null;
  price24hAgo: string | null;
  priceTime: Date | null;
}

export function loadWatchedTokens(sql: Sql): Promise<WatchedTokenRow[]> {
  return sql<WatchedTokenRow[]>`
    select w.coin_type as "coinType", l.symbol, l.price, l.price_24h_ago as "price24hAgo", l.price_time as "priceTime"
    from watched_tokens w
    left join latest_token_prices l on l.coin_type = w.coin_type
    order by coalesce(l.symbol, w.coin_type), w.coin_type`;
}

export interface PriceRow {
  coinType: string;
  priceTime: Date;
  price: string;
}

/** Every price of a watched token since `since`, oldest first per token. */
export function loadWatchedTokenPrices(sql: Sql, since: Date): Promise<PriceRow[]> {
  return sql<PriceRow[]>`
    select p.coin_type as "coinType", p.price_time as "priceTime", p.price
    from token_prices p
    where p.price_time >= ${since}
      and p.coin_type in (select coin_type from watched_tokens)
    order by p.coin_type, p.price_time`;
}
