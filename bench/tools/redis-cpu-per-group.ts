/**
 * Redis CPU of the key groups that are not a queue's, for docs/scaling.md's Redis Cluster sizing (on
 * a Cluster each group's keys sit on one shard):
 *   node bench/tools/redis-cpu-per-group.ts [redis-url] [rate] [seconds]
 * (defaults redis://127.0.0.1:6379, 1500 requests a second, 10 s). It runs, into a scratch prefix of
 * its own, the shared upstream pacer at that rate for that long (what every request costs on the
 * `{<prefix>:upstream}` shard: a start booked and confirmed, with the real round trips and window
 * size), then the tick tracker's finish for as many jobs of one tick (what every job costs on its
 * tick's shard), 50 at a time as a worker's jobs finish. Each is the Redis main thread's CPU
 * (INFO cpu) over that part, per request or job: it includes whatever other clients of the same
 * Redis did meanwhile, so run it on a quiet Redis and read it as an upper bound. The prefix is
 * deleted at the end, also on error.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { keysPattern, upstreamPaceKey } from '../../src/queue/redis-keys.ts';
import { createTickTracker } from '../../src/queue/tick-tracker.ts';
import { jobId } from '../../src/queue/jobs.ts';
import { createSharedRateLimiter } from '../../src/upstream/rate-limiter.ts';

const REDIS_URL = process.argv[2] ?? 'redis://127.0.0.1:6379';
const RATE = Number(process.argv[3] ?? 1500);
const SECONDS = Number(process.argv[4] ?? 10);
const PREFIX = `chaintap-measure-${randomBytes(4).toString('hex')}`;
const TICK = new Date(Date.UTC(2026, 10, 24, 12, 15));
/** Requests in flight, as many workers' jobs waiting for the pacer at once. */
const CONCURRENCY = 50;

/** Seconds of CPU the Redis main thread has used (user + system). */
async function mainThreadCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1]);
  const user = read('used_cpu_user_main_thread');
  // Before Redis 6.2 there is no main-thread figure: the whole process's.
  return Number.isNaN(user) ? read('used_cpu_user') + read('used_cpu_sys') : user + read('used_cpu_sys_main_thread');
}

async function perOperation(redis: Redis, count: number, run: () => Promise<void>): Promise<number> {
  const before = await mainThreadCpu(redis);
  await run();
  return ((await mainThreadCpu(redis)) - before) / count;
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const requests = Math.round(RATE * SECONDS);
    const limiter = createSharedRateLimiter({ redis, key: upstreamPaceKey(PREFIX), rps: RATE });
    let acquired = 0;
    const pacer = await perOperation(redis, requests, async () => {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (acquired < requests) {
            acquired += 1;
            await limiter.acquire();
          }
        }),
      );
    });
    console.log(
      `pacer at ${RATE}/s: ${(pacer * 1e6).toFixed(1)} µs of Redis main-thread CPU per request (${requests} requests)`,
    );

    const tracker = createTickTracker(redis, PREFIX);
    const ids = Array.from({ length: requests }, (_, i) =>
      jobId('positions', `0x${i.toString(16).padStart(64, '0')}`, TICK),
    );
    await tracker.expect('positions', TICK, ids);
    const finish = await perOperation(redis, ids.length, async () => {
      for (let i = 0; i < ids.length; i += CONCURRENCY) {
        await Promise.all(ids.slice(i, i + CONCURRENCY).map((id) => tracker.finish('positions', TICK, id)));
      }
    });
    console.log(
      `tick tracker finish: ${(finish * 1e6).toFixed(1)} µs of Redis main-thread CPU per job (${ids.length} jobs of one tick)`,
    );
  } finally {
    for await (const batch of redis.scanStream({ match: keysPattern(PREFIX), count: 1000 })) {
      if ((batch as string[]).length > 0) await redis.unlink(...(batch as string[]));
    }
    redis.disconnect();
  }
}

await main();
