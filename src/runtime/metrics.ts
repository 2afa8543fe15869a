import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const LINT_FAILING_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * Every metric chaintap exports, in a registry per context (none global: tests and in-process workers
 * share no counters). Node's keep their standard names; ours start with chaintap_, rates end in _per_second.
 */
export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) {
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters, which `promtool check metrics` refuses; each is the sum of the
    // gauge of the same name without `_total` (by type), which stays.
    for (const name of LINT_FAILING_DEFAULTS) registry.removeSingleMetric(name);
  }
  const registers = [registry];
  const counter = <L extends string = string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });
  const gauge = <L extends string = string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers });
  return {
    registry,
    upstreamRequests: counter(
      'chaintap_upstream_requests_total',
      'Upstream HTTP requests by operation and outcome (HTTP status, or timeout/network)',
      ['operation', 'status'],
    ),
    upstreamLatency: histogram(
      'chaintap_upstream_request_duration_seconds',
      'Upstream request latency by operation',
      ['operation'],
      [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    ),
    upstreamRetries: counter('chaintap_upstream_retries_total', 'Upstream requests retried, by operation and reason', [
      'operation',
      'reason',
    ]),
    upstreamRateLimited: counter('chaintap_upstream_rate_limited_total', 'Upstream 429 answers, by operation', [
      'operation',
    ]),
    rateLimitWaitSeconds: counter(
      'chaintap_rate_limit_wait_seconds_total',
      'Seconds spent waiting for the shared upstream rate limit',
    ),
    jobs: counter(
      'chaintap_jobs_total',
      'Jobs processed, by queue and outcome (completed, failed, retried, rate_limited, quarantined)',
      ['queue', 'outcome'],
    ),
    jobDuration: histogram(
      'chaintap_job_duration_seconds',
      'Job processing time by queue',
      ['queue'],
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    ),
    rowsWritten: counter('chaintap_rows_written_total', 'Rows inserted or updated, by table', ['table']),
    quarantined: counter(
      'chaintap_quarantined_payloads_total',
      'Upstream bodies, or elements of an answer, that could not be read and were quarantined, by dataset',
      ['dataset'],
    ),
    schemaDrift: counter(
      'chaintap_schema_drift_total',
      'Fields the upstream sent in another shape than documented, by dataset, field and shape',
      ['dataset', 'field', 'shape'],
    ),
    dbQueryDuration: histogram(
      'chaintap_db_query_duration_seconds',
      'Database operations (one statement or one transaction, retries included) by store operation and outcome (ok, error)',
      ['store', 'outcome'],
      [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    ),
    queueDepth: gauge('chaintap_queue_jobs', 'Jobs in each queue by state, read at scrape time', ['queue', 'state']),
    datasetFreshness: gauge(
      'chaintap_dataset_freshness_seconds',
      'Seconds since the last successful tick of each dataset, read at scrape time',
      ['dataset'],
    ),
    datasetLastSuccess: gauge(
      'chaintap_dataset_last_success_timestamp_seconds',
      'Unix time of the last successful tick of each dataset (time() minus it is the freshness), read at scrape time',
      ['dataset'],
    ),
    // A label, so that the gauge is absent (not 0) when there is no replica or it does not answer.
    readReplicaLag: gauge(
      'chaintap_database_read_replica_lag_seconds',
      'How far the read database (DATABASE_READ_URL, its host:port as server) is behind the primary: now minus its last replayed commit, 0 when it has replayed all it received or is not a standby; read at scrape time, exported only when DATABASE_READ_URL is set and it answers',
      ['server'],
    ),
    upstreamRequiredPerSecond: gauge(
      'chaintap_upstream_required_requests_per_second',
      'Upstream requests per second each dataset needs for the watchlist and its cron (the capacity plan), read at scrape time',
      ['dataset'],
    ),
    upstreamAvailablePerSecond: gauge(
      'chaintap_upstream_available_requests_per_second',
      'Upstream requests per second the quota allows (UPSTREAM_RATE), shared by every process',
    ),
    upstreamPausedUntil: gauge(
      'chaintap_upstream_paused_until_seconds',
      'While every process holds its upstream requests back (a 429: its Retry-After, at most UPSTREAM_MAX_PAUSE_MS): when that ends, in Unix seconds; absent when no pause is in force; read at scrape time',
      ['reason'],
    ),
    refreshes: counter(
      'chaintap_refreshes_total',
      'Refreshes of address targets by dataset and what they saw (changed, unchanged, not_compared: a first refresh, an answer not stored whole or an older tick); docs/quota.md',
      ['dataset', 'result'],
    ),
    refreshBudget: gauge(
      'chaintap_refresh_budget_per_hour',
      'Refreshes per hour the refresh policy spends on each address dataset (the quota after prices and maintenance), read at scrape time',
      ['dataset'],
    ),
    refreshExpectedDelay: gauge(
      'chaintap_refresh_expected_delay_seconds',
      'Expected delay from a change to the refresh that sees it, by dataset and statistic (mean, p95), from the estimated change rates (docs/quota.md), read at scrape time',
      ['dataset', 'statistic'],
    ),
    refreshOverMaxAge: gauge(
      'chaintap_refresh_targets_over_max_age',
      'Watched address targets whose last refresh is older than their max age, by dataset, read at scrape time',
      ['dataset'],
    ),
    alertEvents: counter(
      'chaintap_alert_events_total',
      'Alert events fired (recorded in the outbox by this process), by rule kind and status (firing, resolved)',
      ['kind', 'status'],
    ),
    alertDeliveries: counter(
      'chaintap_alert_deliveries_total',
      'Webhook delivery attempts of alert events by outcome (delivered, retrying, failed: given up)',
      ['outcome'],
    ),
    alertsFailing: gauge(
      'chaintap_alert_events_failing',
      'Alert deliveries not delivered yet whose last attempt failed (being retried), as an alerts process last counted them',
    ),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
