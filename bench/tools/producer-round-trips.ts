/**
 * The Redis round trips of one slot's production (`produceTick`) at many targets (issue 33: at most
 * 20 at 10,000):
 *   node bench/tools/producer-round-trips.ts [targets]
 * (default 10,000 watched addresses; BENCH_ADMIN_URL and BENCH_REDIS_URL as for `npm run bench`). It
 * produces positions ticks into a database and Redis prefix of its own, with no upstream (no job runs
 * but through the tool's own no-op worker), and counts at the socket what the producer sends to Redis
 * (bench/support/redis-round-trips.ts): requests (a command, or a pipeline or MULTI, written at once)
 * and round trips (the requests that waited for an answer first). Four slots:
 *   - first: a slot with nothing in Redis yet;
 *   - again: the same slot produced a second time (a second scheduler: every job a duplicate);
 *   - after done: the next slot once every job of the one before completed (a watchlist within quota);
 *   - superseding: the next slot while every job of the one before still waits (each one superseded,
 *     removed and recorded: a watchlist far over its quota).
 * Redis commands executed (INFO stats, every client's: an upper bound on a shared Redis) and the wall
 * time are printed too. The database and the prefix are deleted at the end, also on error.
 */
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { loadOptions } from '../../src/config/options.ts';
import { addWatchedAddresses } from '../../src/db/index.ts';
import { closeQueues, createQueues } from '../../src/queue/queues.ts';
import { queueKeyPrefix } from '../../src/queue/redis-keys.ts';
import { createTickTracker } from '../../src/queue/tick-tracker.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { createRedisConnection } from '../../src/runtime/redis-connection.ts';
import { produceTick, type ProducerDeps } from '../../src/scheduler/producer.ts';
import { installRoundTripCounter } from '../support/redis-round-trips.ts';
import { benchAddress } from '../support/scenario.ts';
import { benchRedisPrefix, benchServices, createBenchDatabase, deleteRedisKeys } from '../support/services.ts';

const TARGETS = Number(process.argv[2] ?? 10_000);
const TARGET_ROUND_TRIPS = 20;
const T0 = Date.UTC(2026, 10, 21, 12, 0);
const SLOT = 15 * 60_000;

async function commandsProcessed(redis: Redis): Promise<number> {
  return Number(/^total_commands_processed:(\d+)/m.exec(await redis.info('stats'))?.[1]);
}

async function main(): Promise<void> {
  const services = benchServices();
  const database = await createBenchDatabase(services, 'round_trips');
  const prefix = benchRedisPrefix();
  const options = loadOptions(
    {},
    { DATABASE_URL: database.url, REDIS_URL: services.redisUrl, QUEUE_PREFIX: prefix, LOG_LEVEL: 'error' },
  );
  const redis = createRedisConnection(options.REDIS_URL, 'producer') as Redis;
  const observer = redis.duplicate();
  const queues = createQueues(redis, prefix);
  const deps: ProducerDeps = {
    context: {
      options,
      logger: createLogger({ level: 'error', secrets: [], pretty: false, destination: process.stderr }),
      metrics: createMetrics({ defaultMetrics: false }),
      signal: new AbortController().signal,
    },
    database,
    queues,
    tracker: createTickTracker(redis, prefix),
    redis,
  };
  const counter = installRoundTripCounter(Number(new URL(services.redisUrl).port || 6379));
  const rows: string[] = [];
  let met = true;
  try {
    for (let i = 0; i < TARGETS; i += 1000) {
      const count = Math.min(1000, TARGETS - i);
      await addWatchedAddresses(
        database,
        Array.from({ length: count }, (_, j) => benchAddress(i + j)),
        {},
      );
    }
    await queues.positions.waitUntilReady();
    const measure = async (label: string, tick: number) => {
      const commandsBefore = await commandsProcessed(observer);
      const started = performance.now();
      counter.start();
      const produced = await produceTick(deps, 'positions', new Date(tick));
      const sent = counter.stop();
      const ms = performance.now() - started;
      const commands = (await commandsProcessed(observer)) - commandsBefore - 1;
      met &&= sent.roundTrips <= TARGET_ROUND_TRIPS;
      rows.push(
        [
          label.padEnd(12),
          String(produced.jobs).padStart(6),
          String(produced.superseded).padStart(10),
          String(sent.roundTrips).padStart(11),
          String(sent.requests).padStart(8),
          (sent.bytesSent / 1e6).toFixed(2).padStart(8),
          String(commands).padStart(9),
          ms.toFixed(0).padStart(7),
        ].join(' '),
      );
    };
    await measure('first', T0);
    await measure('again', T0);
    // Every job of the first slot completed (a no-op worker), as within the quota.
    const workerConnection = createRedisConnection(options.REDIS_URL, 'worker');
    const worker = new Worker('positions', async () => ({ outcome: 'succeeded', rowsWritten: 0 }), {
      connection: workerConnection,
      prefix: queueKeyPrefix(prefix, 'positions'),
      concurrency: 200,
    });
    while ((await queues.positions.getCompletedCount()) < TARGETS) await new Promise((r) => setTimeout(r, 200));
    await worker.close();
    workerConnection.disconnect();
    await measure('after done', T0 + SLOT);
    await measure('superseding', T0 + 2 * SLOT);
  } finally {
    counter.uninstall();
    await closeQueues(queues);
    redis.disconnect();
    observer.disconnect();
    await deleteRedisKeys(services.redisUrl, prefix);
    await database.drop();
  }
  console.log(`produceTick('positions') at ${TARGETS.toLocaleString('en-US')} targets`);
  console.log('slot           jobs superseded round trips requests sent MB  commands    ms');
  for (const row of rows) console.log(row);
  console.log(`round trips at most ${TARGET_ROUND_TRIPS} in every slot: ${met ? 'met' : 'NOT met'}`);
}

await main();
