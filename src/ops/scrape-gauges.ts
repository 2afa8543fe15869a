import type { Database } from '../db/client.js';
import type { Logger } from '../runtime/logger.js';
import type { Metrics } from '../runtime/metrics.js';
import type { Queues } from '../queue/queues.js';
import { withDeadline } from './deadline.js';
import { readQueueDepths } from './queue-depths.js';
import { loadDatasetFreshness } from '../db/stores/status.js';

/**
 * Sets the gauges that are read from Redis and Postgres rather than counted in-process: queue depth
 * and dataset freshness. Called on every /metrics scrape. A source that does not answer leaves its
 * gauge empty (reset), so that a dashboard or an `absent()` alert sees missing data instead of
 * stale numbers; the other gauges and the in-process metrics are still exported.
 */
export async function refreshScrapeGauges(input: {
  metrics: Metrics;
  queues: Queues;
  database: Database;
  logger: Logger;
  now: () => Date;
  timeoutMs: number;
}): Promise<void> {
  const { metrics, logger } = input;
  const queueDepths = withDeadline(readQueueDepths(input.queues), input.timeoutMs, 'Redis').then((depths) => {
    metrics.queueDepth.reset();
    for (const { queue, counts } of depths) {
      for (const [state, count] of Object.entries(counts)) metrics.queueDepth.set({ queue, state }, count);
    }
  });
  const freshness = withDeadline(loadDatasetFreshness(input.database), input.timeoutMs, 'Postgres').then((rows) => {
    metrics.datasetFreshness.reset();
    const now = input.now().getTime();
    for (const row of rows) {
      if (row.newestTick)
        metrics.datasetFreshness.set({ dataset: row.dataset }, (now - row.newestTick.getTime()) / 1000);
    }
  });
  const [queueResult, freshnessResult] = await Promise.allSettled([queueDepths, freshness]);
  if (queueResult.status === 'rejected') {
    metrics.queueDepth.reset();
    logger.warn({ err: queueResult.reason }, 'metrics: could not read queue depths from Redis');
  }
  if (freshnessResult.status === 'rejected') {
    metrics.datasetFreshness.reset();
    logger.warn({ err: freshnessResult.reason }, 'metrics: could not read dataset freshness from Postgres');
  }
}
