import type { Gauge } from 'prom-client';
import type { Database } from '../db/client.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import type { Queues } from '../queue/queues.ts';
import { withDeadline } from './deadline.ts';
import { readQueueDepths } from './queue-depths.ts';
import { loadDatasetFreshness } from '../db/stores/status.ts';
import { databaseServer, loadReplicaLag } from '../db/read-replica.ts';
import { loadCapacityPlan } from '../scheduler/capacity-plan.ts';
import { loadRefreshOutlook } from '../scheduler/refresh-outlook.ts';
import type { RefreshOptions } from '../scheduler/refresh-slot.ts';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { loadUpstreamPause } from './status-page-data.ts';

/**
 * Sets, on every /metrics scrape, the gauges read from Redis and Postgres rather than counted
 * in-process. Freshness and the plan are read on the primary: on a lagging replica, freshness alerts
 * would fire. A source that does not answer leaves its gauges empty (reset), so that a dashboard or an
 * `absent()` alert sees missing data rather than stale numbers; the other metrics are still exported.
 */
export async function refreshScrapeGauges(input: {
  metrics: Metrics;
  queues: Queues;
  /** The queues' Redis, where the upstream pacer keeps its pause. */
  redis: RedisClient;
  database: Database;
  /** The read database (DATABASE_READ_URL); the primary's own handle when none is set: no lag gauge then. */
  readDatabase?: Database;
  logger: Logger;
  /** The crons, quota and dataset order the capacity plan is computed from; the Redis key prefix. */
  options: RefreshOptions & { QUEUE_PREFIX: string };
  now: () => Date;
  timeoutMs: number;
}): Promise<void> {
  const { metrics, logger, timeoutMs } = input;
  // A setting, not read from anywhere: always exported.
  metrics.upstreamAvailablePerSecond.set(input.options.UPSTREAM_RATE.rps);
  /** Resets `gauges`, then sets them from what `load` read; left empty when it failed or timed out. */
  async function refresh<T>(gauges: Gauge[], load: Promise<T>, from: string, what: string, set: (value: T) => void) {
    try {
      const value = await withDeadline(load, timeoutMs, from);
      for (const gauge of gauges) gauge.reset();
      set(value);
    } catch (error) {
      for (const gauge of gauges) gauge.reset();
      logger.warn({ err: error }, `metrics: could not read ${what}`);
    }
  }
  const readDatabase = input.readDatabase;
  await Promise.all([
    refresh([metrics.queueDepth], readQueueDepths(input.queues), 'Redis', 'queue depths from Redis', (depths) => {
      for (const { queue, counts } of depths) {
        for (const [state, count] of Object.entries(counts)) metrics.queueDepth.set({ queue, state }, count);
      }
    }),
    refresh(
      [metrics.upstreamPausedUntil],
      loadUpstreamPause(input.redis, input.options.QUEUE_PREFIX),
      'Redis',
      'the upstream pause from Redis',
      // Every pause today is a 429's (its whole reason is in `chaintap status` and on the status page).
      (pause) => pause && metrics.upstreamPausedUntil.set({ reason: 'rate_limited' }, pause.until.getTime() / 1000),
    ),
    refresh(
      [metrics.datasetFreshness, metrics.datasetLastSuccess],
      loadDatasetFreshness(input.database),
      'Postgres',
      'dataset freshness from Postgres',
      (rows) => {
        const now = input.now().getTime();
        for (const { dataset, newestTick } of rows) {
          if (!newestTick) continue;
          metrics.datasetFreshness.set({ dataset }, (now - newestTick.getTime()) / 1000);
          metrics.datasetLastSuccess.set({ dataset }, newestTick.getTime() / 1000);
        }
      },
    ),
    refresh(
      [metrics.upstreamRequiredPerSecond],
      loadCapacityPlan(input.database, input.options),
      'Postgres',
      'the watchlist for the capacity plan from Postgres',
      (plan) => {
        for (const { dataset, neededPerHour } of plan.datasets) {
          metrics.upstreamRequiredPerSecond.set({ dataset }, neededPerHour / 3600);
        }
      },
    ),
    refresh(
      [metrics.refreshBudget, metrics.refreshExpectedDelay, metrics.refreshOverMaxAge],
      loadRefreshOutlook(input.database, input.options, { now: input.now(), nearest: 0 }),
      'Postgres',
      'the refresh outlook from Postgres',
      (outlook) => {
        for (const dataset of outlook.datasets) {
          const labels = { dataset: dataset.dataset };
          metrics.refreshBudget.set(labels, dataset.perHour);
          metrics.refreshOverMaxAge.set(labels, dataset.overMaxAge);
          if (dataset.meanDelaySeconds !== null) {
            metrics.refreshExpectedDelay.set({ ...labels, statistic: 'mean' }, dataset.meanDelaySeconds);
            metrics.refreshExpectedDelay.set({ ...labels, statistic: 'p95' }, dataset.p95DelaySeconds!);
          }
        }
      },
    ),
    readDatabase &&
      readDatabase !== input.database &&
      refresh(
        [metrics.readReplicaLag],
        loadReplicaLag(readDatabase),
        'the read replica',
        'the lag of the read replica (DATABASE_READ_URL)',
        ({ lagSeconds }) => {
          if (lagSeconds !== null) metrics.readReplicaLag.set({ server: databaseServer(readDatabase) }, lagSeconds);
        },
      ),
  ]);
}
