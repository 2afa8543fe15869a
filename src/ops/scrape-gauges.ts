import type { Database } from '../db/client.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import type { Queues } from '../queue/queues.ts';
import { withDeadline } from './deadline.ts';
import { readQueueDepths } from './queue-depths.ts';
import { loadDatasetFreshness } from '../db/stores/status.ts';
import { databaseServer, loadReplicaLag } from '../db/read-replica.ts';
import { loadCapacityPlan, type CapacityPlanOptions } from '../scheduler/capacity-plan.ts';
import type { RedisClient } from '../runtime/redis-connection.ts';
import { loadUpstreamPause } from './status-page-data.ts';

/**
 * Sets the gauges that are read from Redis and Postgres rather than counted in-process: queue depth,
 * the upstream pause in force, dataset freshness (as an age and as the time of the last success) and
 * the requests per second the watchlist needs (the capacity plan), with the quota's, and the read
 * replica's lag when there is one. Freshness and the plan are read on the
 * primary: on a lagging replica, Prometheus alerts on freshness would fire. Called on every /metrics
 * scrape. A source that does not answer leaves its gauge empty (reset), so that a dashboard or an
 * `absent()` alert sees missing data instead of stale numbers; the other gauges and the in-process
 * metrics are still exported.
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
  options: CapacityPlanOptions & { QUEUE_PREFIX: string };
  now: () => Date;
  timeoutMs: number;
}): Promise<void> {
  const { metrics, logger } = input;
  // A setting, not read from anywhere: always exported.
  metrics.upstreamAvailablePerSecond.set(input.options.UPSTREAM_RATE.rps);
  const queueDepths = withDeadline(readQueueDepths(input.queues), input.timeoutMs, 'Redis').then((depths) => {
    metrics.queueDepth.reset();
    for (const { queue, counts } of depths) {
      for (const [state, count] of Object.entries(counts)) metrics.queueDepth.set({ queue, state }, count);
    }
  });
  const pause = withDeadline(loadUpstreamPause(input.redis, input.options.QUEUE_PREFIX), input.timeoutMs, 'Redis').then(
    (current) => {
      metrics.upstreamPausedUntil.reset();
      // Every pause today is a 429's (its whole reason is in `chaintap status` and on the status page).
      if (current) metrics.upstreamPausedUntil.set({ reason: 'rate_limited' }, current.until.getTime() / 1000);
    },
  );
  const freshness = withDeadline(loadDatasetFreshness(input.database), input.timeoutMs, 'Postgres').then((rows) => {
    metrics.datasetFreshness.reset();
    metrics.datasetLastSuccess.reset();
    const now = input.now().getTime();
    for (const row of rows) {
      if (!row.newestTick) continue;
      metrics.datasetFreshness.set({ dataset: row.dataset }, (now - row.newestTick.getTime()) / 1000);
      metrics.datasetLastSuccess.set({ dataset: row.dataset }, row.newestTick.getTime() / 1000);
    }
  });
  const plan = withDeadline(loadCapacityPlan(input.database, input.options), input.timeoutMs, 'Postgres').then(
    (loaded) => {
      metrics.upstreamRequiredPerSecond.reset();
      for (const dataset of loaded.datasets) {
        metrics.upstreamRequiredPerSecond.set({ dataset: dataset.dataset }, dataset.neededPerHour / 3600);
      }
    },
  );
  const readDatabase = input.readDatabase;
  const replicaLag =
    readDatabase && readDatabase !== input.database
      ? withDeadline(loadReplicaLag(readDatabase), input.timeoutMs, 'the read replica').then(({ lagSeconds }) => {
          metrics.readReplicaLag.reset();
          if (lagSeconds !== null) metrics.readReplicaLag.set({ server: databaseServer(readDatabase) }, lagSeconds);
        })
      : Promise.resolve();
  const [queueResult, pauseResult, freshnessResult, planResult, lagResult] = await Promise.allSettled([
    queueDepths,
    pause,
    freshness,
    plan,
    replicaLag,
  ]);
  if (pauseResult.status === 'rejected') {
    metrics.upstreamPausedUntil.reset();
    logger.warn({ err: pauseResult.reason }, 'metrics: could not read the upstream pause from Redis');
  }
  if (queueResult.status === 'rejected') {
    metrics.queueDepth.reset();
    logger.warn({ err: queueResult.reason }, 'metrics: could not read queue depths from Redis');
  }
  if (freshnessResult.status === 'rejected') {
    metrics.datasetFreshness.reset();
    metrics.datasetLastSuccess.reset();
    logger.warn({ err: freshnessResult.reason }, 'metrics: could not read dataset freshness from Postgres');
  }
  if (lagResult.status === 'rejected') {
    metrics.readReplicaLag.reset();
    logger.warn({ err: lagResult.reason }, 'metrics: could not read the lag of the read replica (DATABASE_READ_URL)');
  }
  if (planResult.status === 'rejected') {
    metrics.upstreamRequiredPerSecond.reset();
    logger.warn(
      { err: planResult.reason },
      'metrics: could not read the watchlist for the capacity plan from Postgres',
    );
  }
}
