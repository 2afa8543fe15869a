import { Writable } from 'node:stream';
import { loadOptions, type Options } from '../../src/config/options.ts';
import { redisTopology } from '../../src/config/redis-topology.ts';
import type { Context } from '../../src/runtime/context.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { closeQueues, createQueues, type Queues } from '../../src/queue/queues.ts';
import { createRedisConnection, type RedisClient } from '../../src/runtime/redis-connection.ts';
import { createTickTracker, type TickTracker } from '../../src/queue/tick-tracker.ts';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.ts';
import { openUpstreamClient } from '../../src/cli/resources.ts';
import type { UpstreamClient } from '../../src/upstream/client.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { createTestRedis, type TestRedis } from './redis.ts';

export const TEST_API_KEY = 'test-key-7f3a9c';

/** A fixed world time, so that every run of a test sees the same simulated upstream. */
export const WORLD_TIME = Date.parse('2026-11-21T12:00:00Z');

export interface PipelineHarness {
  context: Context;
  options: Options;
  database: TestDatabase;
  redis: TestRedis;
  simulator: RunningSimulator;
  queues: Queues;
  /** The Redis connection the queues and the tracker use. */
  connection: RedisClient;
  tracker: TickTracker;
  client: UpstreamClient;
  /** Every log line written so far (JSON), to check what the logs say and that the key is absent. */
  logs: string[];
  /** The environment a child `chaintap` process needs to work on the same database, Redis and upstream. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A pipeline of this test file's own: its database, its BullMQ prefix, a simulated upstream and an
 * in-process context. Options override the defaults the way environment variables would.
 */
export async function createPipelineHarness(
  settings: { options?: Record<string, string>; simulator?: Partial<SimulatorOptions>; apiKey?: string } = {},
): Promise<PipelineHarness> {
  const database = await createTestDatabase();
  const redis = createTestRedis();
  const simulator = await startSimulator({
    apiKey: TEST_API_KEY,
    fixedTimeMs: WORLD_TIME,
    faultSeed: 7,
    // The pipeline is tested on answers shaped as the real service sends them (upstream-reality.md).
    world: { realShapes: true },
    ...settings.simulator,
  });
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: redis.prefix,
    UPSTREAM_BASE_URL: simulator.url,
    UPSTREAM_API_KEY: settings.apiKey ?? TEST_API_KEY,
    // A test that states its own quota (UPSTREAM_RATE, or UPSTREAM_RPS as before) gets only that one.
    ...(settings.options?.UPSTREAM_RATE || settings.options?.UPSTREAM_RPS ? {} : { UPSTREAM_RATE: '1000/s' }),
    UPSTREAM_CONCURRENCY: '8',
    UPSTREAM_TIMEOUT_MS: '5000',
    JOB_ATTEMPTS: '3',
    JOB_BACKOFF_MS: '100',
    LOG_LEVEL: 'info',
    ...settings.options,
  };
  const options = loadOptions({}, env);
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level: options.LOG_LEVEL, secrets: [options.UPSTREAM_API_KEY], destination });
  const metrics = createMetrics({ defaultMetrics: false });
  const shutdown = new AbortController();
  const context: Context = { options, logger, metrics, signal: shutdown.signal };
  // The topology the options name: one node by default, a cluster or sentinels when a test says so.
  const connection = createRedisConnection(redisTopology(options), 'worker');
  // As the commands do: a lost connection is a warning while ioredis reconnects.
  connection.on('error', (error: Error) => logger.warn({ err: error.message }, 'Redis connection error; reconnecting'));
  const queues = createQueues(connection, options.QUEUE_PREFIX);
  const tracker = createTickTracker(connection, options.QUEUE_PREFIX);
  // As the commands do: requests on the budget shared through Redis.
  const client = openUpstreamClient(context);
  return {
    context,
    options,
    database,
    redis,
    simulator,
    queues,
    connection,
    tracker,
    client,
    logs,
    env,
    async close() {
      shutdown.abort();
      await client.close();
      await Promise.all(Object.values(queues).map((queue) => queue.obliterate({ force: true }).catch(() => undefined)));
      await closeQueues(queues);
      connection.disconnect();
      await simulator.close();
      await redis.cleanup();
      await database.drop();
    },
  };
}

/** What a producer (produceTick, createScheduler) takes, from a harness. */
export function producerDeps(harness: PipelineHarness) {
  return {
    context: harness.context,
    database: harness.database,
    queues: harness.queues,
    tracker: harness.tracker,
    redis: harness.connection,
  };
}

/** What a run-once cycle (runCycle, runBackfill) takes: a producer's deps and the upstream client. */
export function cycleDeps(harness: PipelineHarness) {
  return { ...producerDeps(harness), client: harness.client };
}
