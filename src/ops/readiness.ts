import type { RedisClient } from '../runtime/redis-connection.ts';
import type { Database } from '../db/client.ts';
import { runQuery } from '../db/query.ts';
import { describe } from '../errors.ts';
import { withDeadline } from './deadline.ts';

/** Ok, or why not in one line (errors.ts describe): never a connection string. */
async function check(run: () => Promise<unknown>, timeoutMs: number, what: string) {
  try {
    await withDeadline(run(), timeoutMs, what);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: describe(error) };
  }
}

/** Ready when Postgres answers a query and Redis answers PING, each within `timeoutMs`. */
export async function checkReadiness(database: Database, redis: RedisClient, timeoutMs: number) {
  const [postgres, redisCheck] = await Promise.all([
    check(() => runQuery(database, 'readiness.check', () => database.sql`select 1`), timeoutMs, 'Postgres'),
    check(
      async () => {
        const reply = await redis.ping();
        if (reply !== 'PONG') throw new Error(`unexpected PING reply ${reply}`);
      },
      timeoutMs,
      'Redis',
    ),
  ]);
  return { ready: postgres.ok && redisCheck.ok, checks: { postgres, redis: redisCheck } };
}
