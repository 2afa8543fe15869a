import type { Database } from '../client.ts';
import { runSql } from '../query.ts';
import type { ingestionRuns, schemaDrifts, tokenPrices } from '../schema/index.ts';

// The queries behind the status page and the scrape-time gauges, each bounded (LIMIT, an indexed
// time window, a row per dataset): the page reloads every 30 s and Prometheus scrapes every worker.

export interface DatasetFreshnessRow {
  dataset: string;
  targets: number;
  /** Newest tick any target of the dataset completed. */
  newestTick: Date | null;
  /** Tick of the stalest target: the one that completed longest ago. */
  oldestTick: Date | null;
  lastSuccessAt: Date | null;
}

export function loadDatasetFreshness(database: Database): Promise<DatasetFreshnessRow[]> {
  return runSql(database, 'status.read')<DatasetFreshnessRow[]>`
    select dataset,
           count(*)::int as targets,
           max(last_success_tick) as "newestTick",
           min(last_success_tick) as "oldestTick",
           max(last_success_at) as "lastSuccessAt"
    from dataset_freshness
    group by dataset
    order by dataset`;
}

/** `id`: a bigint as its decimal string. */
export type FailedRunRow = Pick<
  typeof ingestionRuns.$inferSelect,
  'dataset' | 'target' | 'tick' | 'status' | 'attempts' | 'httpStatus' | 'error' | 'startedAt' | 'finishedAt'
> & { id: string };

/** Newest first. `order by r.id`, not the text `id` of the output: that would sort as text and scan the table. */
export function loadRecentFailures(database: Database, limit: number): Promise<FailedRunRow[]> {
  return runSql(database, 'status.read')<FailedRunRow[]>`
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

export function loadRecentQuarantined(database: Database, limit: number): Promise<QuarantinedRow[]> {
  return runSql(database, 'status.read')<QuarantinedRow[]>`
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

export function loadWatchedTokens(database: Database): Promise<WatchedTokenRow[]> {
  return runSql(database, 'status.read')<WatchedTokenRow[]>`
    select w.coin_type as "coinType", l.symbol, l.price, l.price_24h_ago as "price24hAgo", l.price_time as "priceTime"
    from watched_tokens w
    left join latest_token_prices l on l.coin_type = w.coin_type and l.chain = 'sui'
    order by coalesce(l.symbol, w.coin_type), w.coin_type`;
}

export type PriceRow = Pick<typeof tokenPrices.$inferSelect, 'coinType' | 'priceTime' | 'price'>;

export function loadWatchedTokenPrices(database: Database, since: Date): Promise<PriceRow[]> {
  return runSql(database, 'status.read')<PriceRow[]>`
    select p.coin_type as "coinType", p.price_time as "priceTime", p.price
    from token_prices p
    where p.price_time >= ${since} and p.chain = 'sui'
      and p.coin_type in (select coin_type from watched_tokens)
    order by p.coin_type, p.price_time`;
}

export type SchemaDriftRow = typeof schemaDrifts.$inferSelect;

export function loadRecentSchemaDrifts(database: Database): Promise<SchemaDriftRow[]> {
  return runSql(database, 'status.read')<SchemaDriftRow[]>`
    select dataset, field, shape, first_seen_at as "firstSeenAt", last_seen_at as "lastSeenAt", count::float8 as count
    from schema_drifts
    where last_seen_at > now() - interval '24 hours'
    order by dataset, field, shape`;
}

export interface FailureCount {
  dataset: string;
  failed: number;
  quarantined: number;
  authFailures: number;
  /** Why the latest quarantined run was quarantined (an answer without a list, an element that cannot be read...). */
  lastQuarantineReason: string | null;
}

/** Failed and quarantined runs of the last 24 hours, with auth failures counted apart and the latest quarantine's reason. */
export function loadFailureCounts(database: Database): Promise<FailureCount[]> {
  return runSql(database, 'status.read')<FailureCount[]>`
    select dataset,
           count(*) filter (where status = 'failed')::int as failed,
           count(*) filter (where status = 'quarantined')::int as quarantined,
           count(*) filter (where status = 'failed' and (http_status in (401, 403) or error like 'AuthError%'))::int as "authFailures",
           (array_agg(error order by coalesce(finished_at, started_at) desc) filter (where status = 'quarantined'))[1] as "lastQuarantineReason"
    from ingestion_runs
    where coalesce(finished_at, started_at) > now() - interval '24 hours'
      and status in ('failed', 'quarantined')
    group by dataset
    order by dataset`;
}

export type RunCountRow = { dataset: string; status: string; jobs: string; rows: string | null };

/** Runs and rows written per dataset and status at the given ticks; with `jobIds`, only those jobs' runs. */
export function loadRunCounts(
  database: Database,
  datasets: string[],
  ticks: Date[],
  jobIds?: string[],
): Promise<RunCountRow[]> {
  return runSql(database, 'status.read')<RunCountRow[]>`
      select dataset, status, count(*) as jobs, sum(rows_written) as rows
      from ingestion_runs
      where dataset = any(${datasets}) and tick = any(${ticks.map((tick) => tick.toISOString())}::timestamptz[])
        ${jobIds ? database.sql`and job_id = any(${jobIds})` : database.sql``}
      group by dataset, status`;
}

export type SupersededCount = { dataset: string; superseded: number };

/** Jobs superseded since `since`, per dataset (absent: none): how far the watchlist overruns the quota. */
export function loadSupersededCounts(database: Database, since: Date): Promise<SupersededCount[]> {
  return runSql(database, 'status.read')<SupersededCount[]>`
    select dataset, count(*)::int as superseded
    from ingestion_runs
    where status = 'superseded' and finished_at > ${since}
    group by dataset
    order by dataset`;
}

/** Per dataset: the refreshes of the last 24 hours that saw a change, and half their mean interval. */
export interface RecentChanges {
  dataset: string;
  changes: number;
  /** Half the mean time since the refresh before each of them: the expected delay of a change to its detection. */
  meanDelaySeconds: number;
}

export function loadRecentChanges(database: Database, since: Date): Promise<RecentChanges[]> {
  return runSql(database, 'status.read')<RecentChanges[]>`
    select r.dataset, count(*)::int as changes, round(avg((o ->> 1)::numeric) / 2)::int as "meanDelaySeconds"
    from refresh_targets r, jsonb_array_elements(r.observations) o
    where (o ->> 0)::bigint >= ${Math.floor(since.getTime() / 1000)} and (o ->> 2)::int > 0
    group by r.dataset
    order by r.dataset`;
}
