import { loadOptions, type Options } from '../../src/config/options.ts';
import type { Context } from '../../src/runtime/context.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { closeQueues, createQueues, type Queues } from '../../src/queue/queues.ts';
import { createRedisConnection, type RedisClient } from '../../src/runtime/redis-connection.ts';
import { createTickTracker, type TickTracker } from '../../src/queue/tick-tracker.ts';
import type { SimulatorStats } from '../../src/simulator/index.ts';
import {
  benchRedisPrefix,
  createBenchDatabase,
  deleteRedisKeys,
  type BenchDatabase,
  type BenchServices,
} from './services.ts';
import { startSimulatorProcess, type SimulatorProcess } from './simulator-process.ts';

export const BENCH_API_KEY = 'bench-key-5c1e7a';
/** A fixed world time: every run asks the simulated upstream about the same world. */
export const WORLD_TIME = Date.parse('2026-11-21T12:00:00Z');
/** What the issue fixes for the address and price scenarios. */
export const UPSTREAM_RPS = 200;
export const UPSTREAM_LATENCY_MS = 50;

export interface BenchPipeline {
  database: BenchDatabase;
  simulator: SimulatorProcess;
  /** The producer side, in this process: the same queues and tick tracker the scheduler uses. */
  context: Context;
  queues: Queues;
  tracker: TickTracker;
  redis: RedisClient;
  /** The environment of a `chaintap` child process working on this pipeline. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A database, a Redis prefix and a simulated upstream (a process of its own: it answers 5,000+
 * requests per second, far above the 200 asked of it) with 50 ms latency that answers 429 past
 * exactly UPSTREAM_RPS requests in any trailing second.
 */
export async function createBenchPipeline(
  services: BenchServices,
  label: string,
  settings: Record<string, string> = {},
  world: { habits?: boolean } = {},
): Promise<BenchPipeline> {
  const database = await createBenchDatabase(services, label);
  const prefix = benchRedisPrefix();
  const simulator = await startSimulatorProcess({
    apiKey: BENCH_API_KEY,
    fixedTimeMs: WORLD_TIME,
    latencyMs: UPSTREAM_LATENCY_MS,
    rateLimit: UPSTREAM_RPS,
    habits: world.habits,
  });
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: services.redisUrl,
    QUEUE_PREFIX: prefix,
    UPSTREAM_BASE_URL: simulator.url,
    UPSTREAM_API_KEY: BENCH_API_KEY,
    UPSTREAM_RPS: String(UPSTREAM_RPS),
    // 200 requests/s at 50 ms latency plus the time to write each answer: 48 per queue and process is plenty.
    UPSTREAM_CONCURRENCY: '48',
    OPS_PORT: '0',
    LOG_LEVEL: 'warn',
    ...settings,
  };
  const options: Options = loadOptions({}, env);
  const logger = createLogger({ level: 'warn', secrets: [BENCH_API_KEY], pretty: false, destination: process.stderr });
  const context: Context = {
    options,
    logger,
    metrics: createMetrics({ defaultMetrics: false }),
    signal: new AbortController().signal,
  };
  const redis = createRedisConnection(options.REDIS_URL, 'worker');
  const queues = createQueues(redis, prefix);
  const tracker = createTickTracker(redis, prefix);
  return {
    database,
    simulator,
    context,
    queues,
    tracker,
    redis,
    env,
    async close() {
      await closeQueues(queues);
      redis.disconnect();
      await simulator.close();
      await deleteRedisKeys(services.redisUrl, prefix);
      await database.drop();
    },
  };
}

/** The achieved request rate at the simulator: requests over the span from the first to the last. */
export function achievedRate(stats: SimulatorStats): {
  requests: number;
  spanSeconds: number;
  perSecond: number;
  rateLimited: number;
  maxInTrailingSecond: number;
} {
  const spanSeconds =
    stats.firstRequestAt !== null && stats.lastRequestAt !== null
      ? (stats.lastRequestAt - stats.firstRequestAt) / 1000
      : 0;
  return {
    requests: stats.requests,
    spanSeconds,
    // n requests span n - 1 intervals.
    perSecond: spanSeconds > 0 ? (stats.requests - 1) / spanSeconds : 0,
    rateLimited: stats.byStatus['429'] ?? 0,
    maxInTrailingSecond: stats.maxInTrailingSecond,
  };
}
