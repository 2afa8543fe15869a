import { Writable } from 'node:stream';
import type { RedisClient } from '../../src/runtime/redis-connection.ts';
import { loadOptions, type Options } from '../../src/config/options.ts';
import type { Context } from '../../src/runtime/context.ts';
import type { Database } from '../../src/db/client.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { createOpsServer, type OpsServer } from '../../src/ops/server.ts';
import { closeQueues, createQueues, type Queues } from '../../src/queue/queues.ts';
import { createRedisConnection } from '../../src/runtime/redis-connection.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createTestRedis, type TestRedis } from '../support/redis.ts';

export interface RunningOpsServer extends OpsServer {
  url: string;
  context: Context;
  /** Every log line the server wrote. */
  logLines: string[];
}

/** An ops server on a free loopback port over the given stores, logging into memory. */
export async function startOpsServer(input: {
  database: Database;
  redis: RedisClient;
  queues: Queues;
  options?: Partial<Record<keyof Options, string>>;
  now?: () => Date;
}): Promise<RunningOpsServer> {
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const context: Context = {
    options: loadOptions({ OPS_HOST: '127.0.0.1', OPS_PORT: '0', ...input.options }, {}),
    logger: createLogger({ level: 'debug', destination }),
    metrics: createMetrics(),
    signal: new AbortController().signal,
  };
  const server = createOpsServer({
    context,
    database: input.database,
    redis: input.redis,
    queues: input.queues,
    now: input.now,
  });
  const url = await server.listen();
  return { ...server, url, context, logLines };
}

export interface OpsStores {
  database: TestDatabase;
  testRedis: TestRedis;
  redis: RedisClient;
  queues: Queues;
  /** Closes the queues and the connection, removes the Redis keys and drops the database. */
  close(): Promise<void>;
}

/** What an ops server reads: a database of this test file's own, and queues under a Redis prefix of its own. */
export async function openOpsStores(): Promise<OpsStores> {
  const database = await createTestDatabase();
  const testRedis = createTestRedis();
  const redis = createRedisConnection(testRedis.url, 'producer');
  const queues = createQueues(redis, testRedis.prefix);
  return {
    database,
    testRedis,
    redis,
    queues,
    async close() {
      await closeQueues(queues);
      redis.disconnect();
      await testRedis.cleanup();
      await database.drop();
    },
  };
}
