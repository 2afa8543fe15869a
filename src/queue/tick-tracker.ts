import type { Redis } from 'ioredis';
import type { Dataset } from './queues.js';
import { tickLabel } from './jobs.js';

/**
 * Knows when every job of a dataset's tick has reached a final outcome (succeeded, quarantined or
 * failed for good). Producers record how many jobs a tick has; each job marks itself finished by id
 * (a set, so a job re-run after a crash counts once). Exactly one caller learns that the tick just
 * completed, which is when the pipeline sends NOTIFY chaintap_snapshots.
 */
const TTL_SECONDS = 3 * 24 * 3600;

// KEYS[1] expected, KEYS[2] finished set, KEYS[3] completed flag; ARGV[1] job id, ARGV[2] ttl
const FINISH_SCRIPT = `
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[2])
local expected = tonumber(redis.call('GET', KEYS[1]) or '-1')
if expected >= 0 and redis.call('SCARD', KEYS[2]) >= expected then
  if redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[2]) then return 1 end
end
return 0
`;

// KEYS as above; ARGV[1] expected, ARGV[2] ttl. Re-producing a tick never lowers the expectation.
const EXPECT_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '-1')
local expected = tonumber(ARGV[1])
if expected > current then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) else expected = current end
if redis.call('SCARD', KEYS[2]) >= expected then
  if redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[2]) then return 1 end
end
return 0
`;

/** What a tick's jobs count towards: a dataset's scheduled tick, or one time step of a price backfill. */
export type TickStream = Dataset | 'backfill';

export interface TickProgress {
  expected: number;
  finished: number;
  complete: boolean;
}

export interface TickTracker {
  /** Records the tick's job count; true when that completes it (a tick with no jobs). */
  expect(stream: TickStream, tick: Date, jobs: number): Promise<boolean>;
  /** Marks one job finished; true for exactly one caller: the one that completed the tick. */
  finish(stream: TickStream, tick: Date, jobId: string): Promise<boolean>;
  progress(stream: TickStream, tick: Date): Promise<TickProgress>;
  /** Finished jobs that run again (re-enqueued after removal, or retried by hand) no longer count as finished. */
  reopen(stream: TickStream, tick: Date, jobIds: string[]): Promise<void>;
}

export function createTickTracker(redis: Redis, prefix: string): TickTracker {
  const keys = (stream: TickStream, tick: Date) => {
    const base = `${prefix}:tick:${stream}:${tickLabel(tick)}`;
    return [`${base}:expected`, `${base}:finished`, `${base}:completed`] as const;
  };
  return {
    async expect(stream, tick, jobs) {
      const result = await redis.eval(EXPECT_SCRIPT, 3, ...keys(stream, tick), jobs, TTL_SECONDS);
      return result === 1;
    },
    async finish(stream, tick, id) {
      const result = await redis.eval(FINISH_SCRIPT, 3, ...keys(stream, tick), id, TTL_SECONDS);
      return result === 1;
    },
    async progress(stream, tick) {
      const [expectedKey, finishedKey, completedKey] = keys(stream, tick);
      const [expected, finished, completed] = await Promise.all([
        redis.get(expectedKey),
        redis.scard(finishedKey),
        redis.exists(completedKey),
      ]);
      return { expected: Number(expected ?? 0), finished, complete: completed === 1 };
    },
    async reopen(stream, tick, ids) {
      if (ids.length === 0) return;
      const [, finishedKey, completedKey] = keys(stream, tick);
      const removed = await redis.srem(finishedKey, ...ids);
      if (removed > 0) await redis.del(completedKey);
    },
  };
}
