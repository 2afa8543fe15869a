import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { keysPattern } from '../../src/queue/redis-keys.ts';

/**
 * The Postgres and Redis a benchmark run works on: databases of its own (created and dropped here,
 * named chaintap_bench_*) and a Redis key prefix of its own. Nothing else is ever touched.
 */
export interface BenchServices {
  /** Admin connection used only to create and drop the bench's own databases. */
  adminUrl: string;
  redisUrl: string;
}

export function benchServices(env: Record<string, string | undefined> = process.env): BenchServices {
  return {
    adminUrl: env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

export interface BenchDatabase extends Database {
  url: string;
  name: string;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** A fresh, migrated database named after the scenario. */
export async function createBenchDatabase(
  services: BenchServices,
  label: string,
  poolSize = 10,
): Promise<BenchDatabase> {
  const name = `chaintap_bench_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(services.adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(services.adminUrl);
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  const database = createDatabase(url.toString(), { max: poolSize, applicationName: 'chaintap-bench' });
  return {
    ...database,
    url: url.toString(),
    name,
    async drop() {
      await database.close();
      const cleanup = postgres(services.adminUrl, { max: 1, onnotice: () => {} });
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/** A BullMQ prefix of the run's own; `cleanup` deletes every key under it. */
export function benchRedisPrefix(): string {
  return `chaintap-bench-${randomBytes(4).toString('hex')}`;
}

export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', keysPattern(prefix), 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
