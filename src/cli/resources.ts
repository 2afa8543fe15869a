import type { Context } from '../runtime/context.ts';
import type { Shutdown } from '../runtime/shutdown.ts';
import { ChaintapError } from '../errors.ts';
import { createDatabase } from '../db/client.ts';
import { closeQueues, createQueues } from '../queue/queues.ts';
import { checkEvictionPolicy, createRedisConnection, type RedisClient } from '../runtime/redis-connection.ts';
import { describeTopology, redisTopology, topologySetting, type RedisTopology } from '../config/redis-topology.ts';
import { checkKeyLayout } from '../queue/key-layout.ts';
import { upstreamPaceKey } from '../queue/redis-keys.ts';
import { createTickTracker } from '../queue/tick-tracker.ts';
import { createUpstreamClient, transportSettings, type UpstreamClient } from '../upstream/client.ts';
import { createHttpTransport } from '../upstream/http-transport.ts';
import { createSharedRateLimiter } from '../upstream/rate-limiter.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';

/**
 * How long a command waits for Redis at start, or how many failed attempts in a row (the first three
 * are about a second apart), before it says so and exits. Later, ioredis reconnects by itself.
 */
const REDIS_READY_TIMEOUT_MS = 5_000;
const REDIS_FAILED_ATTEMPTS = 3;

/** The connections a command works with, each added to the command's shutdown as it is opened. */
export async function openResources(context: Context, shutdown: Shutdown) {
  const { options, logger, metrics } = context;
  // Postgres first, so that it closes last (queues, then Redis, then Postgres).
  const database = createDatabase(options.DATABASE_URL, { max: options.DATABASE_POOL_SIZE, metrics, logger });
  shutdown.add('postgres', () => database.close());
  // Reached once at start: an unreachable server, a missing database or a refused login is one clear
  // error now (src/cli/failure.ts), not jobs failing one by one. Later outages are ridden out.
  await database.sql`select 1`;
  const topology = redisTopology(options);
  const redis = createRedisConnection(topology, 'worker');
  shutdown.add('redis', () => redis.disconnect());
  await waitUntilReady(redis, topology);
  // ioredis reconnects by itself; without a listener each failed attempt is an unhandled 'error' event.
  redis.on('error', (error) => logger.warn({ err: error.message }, 'Redis connection error; reconnecting'));
  await checkEvictionPolicy(redis, logger);
  await checkKeyLayout(redis, options.QUEUE_PREFIX, logger);
  const queues = createQueues(redis, options.QUEUE_PREFIX);
  shutdown.add('queues', () => closeQueues(queues));
  const tracker = createTickTracker(redis, options.QUEUE_PREFIX);
  return { database, redis, queues, tracker };
}

/** Resolves when Redis is ready; rejects after the timeout or the failed attempts, with the last error. */
function waitUntilReady(redis: RedisClient, topology: RedisTopology): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let failures = 0;
    let lastError = '';
    const done = (error?: ChaintapError) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      if (!error) return resolve();
      // Until the shutdown disconnects it, a failed attempt must still have a listener.
      redis.on('error', () => undefined);
      reject(error);
    };
    // Hosts and ports only: a URL may carry a password.
    const fail = (why: string) =>
      done(
        new ChaintapError(`cannot reach Redis at ${describeTopology(topology)} ${why} (${topologySetting(topology)})`),
      );
    const onReady = () => done();
    const onError = (error: Error) => {
      lastError = error.message;
      if (++failures >= REDIS_FAILED_ATTEMPTS) fail(`after ${failures} attempts: ${lastError}`);
    };
    const timer = setTimeout(
      () => fail(`within ${REDIS_READY_TIMEOUT_MS / 1000} s${lastError ? `: ${lastError}` : ''}`),
      REDIS_READY_TIMEOUT_MS,
    );
    redis.once('ready', onReady);
    redis.on('error', onError);
  });
}

/** The upstream client, its request budget shared through Redis (a connection of its own); closed by `shutdown`. */
export function openUpstreamClient(context: Context, shutdown?: Shutdown): UpstreamClient {
  const { options, logger, metrics } = context;
  // A missing key or URL is a ConfigError before any connection opens (none may hold the process open).
  const settings = transportSettings(options);
  const topology = redisTopology(options);
  const redis = createRedisConnection(topology, 'worker', { connectionName: 'chaintap-upstream-pace' });
  // ioredis reconnects by itself; without a listener each failed attempt is an unhandled 'error' event.
  redis.on('error', (error) =>
    logger.warn(
      { component: 'upstream', err: error.message },
      'Redis connection of the upstream rate limit lost; reconnecting',
    ),
  );
  const rateLimiter = createSharedRateLimiter({
    redis,
    key: upstreamPaceKey(options.QUEUE_PREFIX),
    rps: options.UPSTREAM_RPS,
  });
  const http = createHttpTransport(settings, rateLimiter);
  // The budget waits for Redis as long as it takes (a worker rides out a Redis restart so); probe,
  // which has not reached Redis itself, would wait forever on an unreachable one: reach it once first.
  let reached: Promise<void> | undefined;
  const reach = () => {
    reached ??= waitUntilReady(redis, topology).catch((error: unknown) => {
      reached = undefined;
      throw error;
    });
    return reached;
  };
  const transport: UpstreamTransport = {
    send: (request, signal) => reach().then(() => http.send(request, signal)),
    pause: (ms, reason) => reach().then(() => http.pause(ms, reason)),
    close: async () => {
      await http.close();
      redis.disconnect();
    },
  };
  const client = createUpstreamClient({ options, logger, metrics, transport });
  shutdown?.add('upstream client', () => client.close());
  return client;
}
