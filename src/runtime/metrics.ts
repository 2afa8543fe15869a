import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const LINT_FAILING_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * Every Prometheus metric chaintap exports. One registry per process context (no global registry),
 * so tests and in-process workers never share counters by accident. Node's process metrics keep
 * their standard names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, ...), so that stock
 * Node.js dashboards work; chaintap's own start with chaintap_, rates end in _per_second.
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
  return {
    registry,
    upstreamRequests: new Counter({
      name: 'chaintap_upstream_requests_total',
      help: 'Upstream HTTP requests by operation and outcome (HTTP status, or timeout/network)',
      labelNames: ['operation', 'status'] as const,
      registers,
    }),
    upstreamLatency: new Histogram({
      name: 'chaintap_upstream_request_duration_seconds',
      help: 'Upstream request latency by operation',
      labelNames: ['operation'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    upstreamRetries: new Counter({
      name: 'chaintap_upstream_retries_total',
      help: 'Upstream requests retried, by operation and reason',
      labelNames: ['operation', 'reason'] as const,
      registers,
    }),
    upstreamRateLimited: new Counter({
      name: 'chaintap_upstream_rate_limited_total',
      help: 'Upstream 429 answers, by operation',
      labelNames: ['operation'] as const,
      registers,
    }),
    rateLimitWaitSeconds: new Counter({
      name: 'chaintap_rate_limit_wait_seconds_total',
      help: 'Seconds spent waiting for the shared upstream rate limit',
      registers,
    }),
    jobs: new Counter({
      name: 'chaintap_jobs_total',
      help: 'Jobs processed, by queue and outcome (completed, failed, retried, rate_limited, quarantined)',
      labelNames: ['queue', 'outcome'] as const,
      registers,
    }),
    jobDuration: new Histogram({
      name: 'chaintap_job_duration_seconds',
      help: 'Job processing time by queue',
      labelNames: ['queue'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    rowsWritten: new Counter({
      name: 'chaintap_rows_written_total',
      help: 'Rows inserted or updated, by table',
      labelNames: ['table'] as const,
      registers,
    }),
    quarantined: new Counter({
      name: 'chaintap_quarantined_payloads_total',
      help: 'Upstream bodies, or elements of an answer, that could not be read and were quarantined, by dataset',
      labelNames: ['dataset'] as const,
      registers,
    }),
    schemaDrift: new Counter({
      name: 'chaintap_schema_drift_total',
      help: 'Fields the upstream sent in another shape than documented, by dataset, field and shape',
      labelNames: ['dataset', 'field', 'shape'] as const,
      registers,
    }),
    dbQueryDuration: new Histogram({
      name: 'chaintap_db_query_duration_seconds',
      help: 'Database operations (one statement or one transaction, retries included) by store operation and outcome (ok, error)',
      labelNames: ['store', 'outcome'] as const,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'chaintap_queue_jobs',
      help: 'Jobs in each queue by state, read at scrape time',
      labelNames: ['queue', 'state'] as const,
      registers,
    }),
    datasetFreshness: new Gauge({
      name: 'chaintap_dataset_freshness_seconds',
      help: 'Seconds since the last successful tick of each dataset, read at scrape time',
      labelNames: ['dataset'] as const,
      registers,
    }),
    datasetLastSuccess: new Gauge({
      name: 'chaintap_dataset_last_success_timestamp_seconds',
      help: 'Unix time of the last successful tick of each dataset (time() minus it is the freshness), read at scrape time',
      labelNames: ['dataset'] as const,
      registers,
    }),
    readReplicaLag: new Gauge({
      name: 'chaintap_database_read_replica_lag_seconds',
      help: 'How far the read database (DATABASE_READ_URL, its host:port as server) is behind the primary: now minus its last replayed commit, 0 when it has replayed all it received or is not a standby; read at scrape time, exported only when DATABASE_READ_URL is set and it answers',
      // A label, so that the gauge is absent (not 0) when there is no replica or it does not answer.
      labelNames: ['server'] as const,
      registers,
    }),
    upstreamRequiredPerSecond: new Gauge({
      name: 'chaintap_upstream_required_requests_per_second',
      help: 'Upstream requests per second each dataset needs for the watchlist and its cron (the capacity plan), read at scrape time',
      labelNames: ['dataset'] as const,
      registers,
    }),
    upstreamAvailablePerSecond: new Gauge({
      name: 'chaintap_upstream_available_requests_per_second',
      help: 'Upstream requests per second the quota allows (UPSTREAM_RATE), shared by every process',
      registers,
    }),
    upstreamPausedUntil: new Gauge({
      name: 'chaintap_upstream_paused_until_seconds',
      help: 'While every process holds its upstream requests back (a 429: its Retry-After, at most UPSTREAM_MAX_PAUSE_MS): when that ends, in Unix seconds; absent when no pause is in force; read at scrape time',
      labelNames: ['reason'] as const,
      registers,
    }),
    alertEvents: new Counter({
      name: 'chaintap_alert_events_total',
      help: 'Alert events fired (recorded in the outbox by this process), by rule kind and status (firing, resolved)',
      labelNames: ['kind', 'status'] as const,
      registers,
    }),
    alertDeliveries: new Counter({
      name: 'chaintap_alert_deliveries_total',
      help: 'Webhook delivery attempts of alert events by outcome (delivered, retrying, failed: given up)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    alertsFailing: new Gauge({
      name: 'chaintap_alert_events_failing',
      help: 'Alert deliveries not delivered yet whose last attempt failed (being retried), as an alerts process last counted them',
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
